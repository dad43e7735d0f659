// `slipgate sandbox qr --slip <file>` (#59): the sandbox slip drawn as a
// phone's banking app shows it. The picture reads back, with slipgate's own
// decoder, as exactly the QR printed, so it takes the picture path like a
// real slip; the command writes it beside the QR it prints.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { sandboxSlipPicture } from '../../src/upstream/sandbox/slip-picture.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';
import { tempDir } from '../helpers/temp.js';

describe('the sandbox slip picture', () => {
  const dir = tempDir('slipgate-slip-picture-');
  afterAll(() => dir.remove());

  it('is a phone screenshot whose QR reads back as the slip printed', async () => {
    const qrcode = sandboxQr({ amount: 349.5, details: { receiverName: 'ร้านก๋วย', paidAt: new Date('2026-11-25T14:05:00+07:00') } });
    const png = await sandboxSlipPicture(qrcode);
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1080, height: 1920 });
    expect(await decodeSlipImage(new Uint8Array(png))).toBe(qrcode);
  });

  it('refuses a QR that is not a slip', async () => {
    await expect(sandboxSlipPicture('https://example.com/')).rejects.toThrow(/not a slip QR/);
  });

  it('sandbox qr --slip writes it beside the QR it prints', () => {
    const file = join(dir.path, 'slip.png');
    const qrcode = execFileSync(process.execPath, [...SLIPGATE_CLI, 'sandbox', 'qr', '--amount', '250.00', '--slip', file], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: `sqlite:${join(dir.path, 'x.db')}`, LOG_LEVEL: 'silent' } }).trim();
    return expect(decodeSlipImage(new Uint8Array(readFileSync(file)))).resolves.toBe(qrcode);
  });
});
