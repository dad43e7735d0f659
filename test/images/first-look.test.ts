// The first look (src/slip-image/first-look.ts): one channel of a smaller
// copy, a JPEG shrunk while it decodes. It takes only the colour layouts it
// knows (the file header says which), and what it misses or skips goes on to
// the full looks, so a picture it cannot read is still read.
import QRCode from 'qrcode';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeSlipImageDetailed } from '../../src/slip-image/decode-image.js';
import { firstLookShrink } from '../../src/slip-image/first-look.js';
import { readImageHeader } from '../../src/slip-image/image-header.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';

let qrcode: string;
let slip: Buffer;

beforeAll(async () => {
  qrcode = sandboxQr({ amount: 12 });
  const qr = await QRCode.toBuffer(qrcode, { width: 360, margin: 4 });
  // A tall screenshot: the QR in the lower half of a mostly empty screen.
  slip = await sharp({ create: { width: 1080, height: 2340, channels: 3, background: '#eef1f4' } })
    .composite([{ input: qr, top: 1500, left: 600 }])
    .png()
    .toBuffer();
});

describe('the first look', () => {
  it('shrinks by the largest power of two (up to 8) that keeps the longer side at 1000 px or more', () => {
    expect(firstLookShrink({ width: 1080, height: 2340 })).toBe(2);
    expect(firstLookShrink({ width: 4000, height: 3000 })).toBe(4);
    expect(firstLookShrink({ width: 8000, height: 6000 })).toBe(8);
    expect(firstLookShrink({ width: 16000, height: 12000 })).toBe(8);
    expect(firstLookShrink({ width: 1200, height: 900 })).toBe(1);
  });

  it('knows each colour layout from the header: gray, colour, or one it leaves to the full looks (CMYK)', async () => {
    const gray = await sharp(slip).toColourspace('b-w').png().toBuffer();
    const grayJpeg = await sharp(slip).toColourspace('b-w').jpeg().toBuffer();
    const cmyk = await sharp(slip).toColourspace('cmyk').jpeg().toBuffer();
    expect(readImageHeader(slip)).toEqual({ format: 'png', width: 1080, height: 2340, colour: 'color' });
    expect(readImageHeader(gray)?.colour).toBe('gray');
    expect(readImageHeader(grayJpeg)).toEqual({ format: 'jpeg', width: 1080, height: 2340, colour: 'gray' });
    expect(readImageHeader(cmyk)?.colour).toBe('other');
    expect(readImageHeader(await sharp(slip).webp().toBuffer())?.colour).toBe('color');
  });

  it('reads PNG, JPEG (shrunk while decoding), WebP and gray pictures; a CMYK JPEG is read by the full looks', async () => {
    const camera = await sharp(slip).resize({ height: 3000 }).extend({ left: 1300, right: 1315, background: '#2a2a2e' }).jpeg({ quality: 85 }).toBuffer();
    expect(readImageHeader(camera)).toMatchObject({ width: 4000, height: 3000 });
    const pictures = {
      png: slip,
      jpeg: await sharp(slip).jpeg({ quality: 80 }).toBuffer(),
      webp: await sharp(slip).webp({ quality: 80 }).toBuffer(),
      'gray jpeg': await sharp(slip).toColourspace('b-w').jpeg().toBuffer(),
      '12-megapixel jpeg': camera,
    };
    for (const [name, bytes] of Object.entries(pictures)) {
      const found = await decodeSlipImageDetailed(bytes);
      expect({ name, qrcode: found?.qrcode, attempt: found?.attempt }).toEqual({ name, qrcode, attempt: 'first-look' });
    }
    const cmyk = await decodeSlipImageDetailed(await sharp(slip).toColourspace('cmyk').jpeg().toBuffer());
    expect(cmyk?.qrcode).toBe(qrcode);
    expect(cmyk?.attempt).not.toBe('first-look');
  });

  it('falls back to the full looks when it reads nothing: a dark-mode (inverted) QR, which only the harder look inverts', async () => {
    const found = await decodeSlipImageDetailed(await sharp(slip).negate({ alpha: false }).png().toBuffer());
    expect(found?.qrcode).toBe(qrcode);
    expect(found?.attempt).not.toBe('first-look');
  });
});
