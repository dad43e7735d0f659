// `slipgate verify` as a real process against a real running slipgate.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { renderSlipImage } from '../images/slip-images.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate verify', () => {
  let app: TestApp;
  const dir = tempDir();
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, 'verify', ...args], { env: { ...process.env, SLIPGATE_API_KEY: '', SLIPGATE_URL: '' } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('reads the QR from a slip photo, verifies it with checks and exits 0', async () => {
    const { accountId, apiKey } = await app.account(2);
    const qrcode = sandboxQr({ amount: 420 });
    const file = join(dir.path, 'slip.jpg');
    const params = { kind: 'camera', qrPx: 200, rotation: 8, shear: 0.03, blur: 0.8, quality: 70, exposure: 0.9, header: '#138f2d' } as const;
    writeFileSync(file, await renderSlipImage(params, qrcode, 1));

    const decoded = await slipgate('--image', file, '--decode-only');
    expect(decoded).toMatchObject({ code: 0, stdout: `${qrcode}\n` });

    const res = await slipgate('--image', file, '--url', app.publicUrl, '--api-key', apiKey, '--amount', '420', '--duplicate');
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body).toMatchObject({ status: 'success', qrcode, data: { amount: 420 } });
    expect(body.checks).toStrictEqual({
      duplicate: { passed: true, seen: false, count: 0, firstVerifiedAt: null },
      amount: { passed: true, expected: 420, actual: 420 },
    });
    expect((await app.store.getAccount(accountId))!.usage).toBe(1);
  });

  it('--server-decode sends the picture itself; slipgate reads the QR', async () => {
    const { accountId, apiKey } = await app.account(2);
    const qrcode = sandboxQr({ amount: 420 });
    const file = join(dir.path, 'server-slip.png');
    const params = { kind: 'screenshot', qrPx: 260, rotation: 0, shear: 0, blur: 0, quality: null, exposure: 1, header: '#4e2e7f' } as const;
    writeFileSync(file, await renderSlipImage(params, qrcode, 2));
    const sent = await slipgate('--image', file, '--server-decode', '--url', app.publicUrl, '--api-key', apiKey, '--amount', '420');
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ status: 'success', qrcode, checks: { amount: { passed: true } } });
    expect((await app.store.listVerifyTransactions({ accountId, limit: 5 })).items.map((r) => r.source)).toEqual(['image']);
  });

  it('verifies --qr text; an error answer exits 1, bad input 2, no server 3', async () => {
    const broke = await app.account(0);
    const refused = await slipgate('--qr', sandboxQr(), '--url', app.publicUrl, '--api-key', broke.apiKey);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'error', code: 1023, kind: 'account' });

    const blank = join(dir.path, 'blank.png');
    writeFileSync(blank, await sharp({ create: { width: 300, height: 400, channels: 3, background: '#f0f0f0' } }).png().toBuffer());
    const noQr = await slipgate('--image', blank, '--url', app.publicUrl, '--api-key', broke.apiKey);
    expect(noQr.code).toBe(2);
    expect(noQr.stderr).toMatch(/no QR code found in .*blank\.png/);

    const both = await slipgate('--qr', 'x', '--image', blank);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --image/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await slipgate('--qr', sandboxQr(), '--url', `http://127.0.0.1:${port}`, '--api-key', 'slip_x');
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/could not reach slipgate: ECONNREFUSED/);
    // The URL it tried: a wrong --url or SLIPGATE_URL is the usual cause.
    expect(down.stderr).toContain(`tried http://127.0.0.1:${port}; set --url or SLIPGATE_URL`);
  });
});
