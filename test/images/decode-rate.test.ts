// Decode rate of slip images : a generated set of slip photos and
// screenshots, each read by the Node decoder (sharp + jsQR) and compared with
// the QR it was made from. The rate is printed; docs/pictures.md records it.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeSlipImage, decodeSlipImageDetailed, SlipImageError } from '../../src/slip-image/decode-image.js';
import { findQrInPixels } from '../../src/slip-image/qr-from-pixels.js';
import { generateSlipImages, type SlipImage } from './slip-images.js';
import { unreadableQrPicture } from './unreadable-qr.js';

const COUNT = 80;
const FLOOR = 0.98;

describe('slip image decoding', () => {
  let set: SlipImage[];
  beforeAll(async () => {
    set = await generateSlipImages(COUNT);
  }, 240_000);

  it(`reads at least ${FLOOR * 100}% of the images a phone reasonably produces`, { timeout: 240_000 }, async () => {
    const rows: { image: SlipImage; ok: boolean; attempts: number; byJsQr: boolean }[] = [];
    for (const image of set) {
      const found = await decodeSlipImageDetailed(image.image);
      rows.push({ image, ok: found?.qrcode === image.qrcode, attempts: found?.attempts ?? 0, byJsQr: typeof found?.attempt === 'object' });
      // A decoder that reads a different QR than the one on the slip would be worse than none.
      if (found) expect(found.qrcode).toBe(image.qrcode);
    }
    const rate = (xs: typeof rows) => (xs.length ? xs.filter((r) => r.ok).length / xs.length : 1);
    const reasonable = rows.filter((r) => r.image.reasonable);
    const report = {
      reasonable: `${reasonable.filter((r) => r.ok).length}/${reasonable.length} (${(rate(reasonable) * 100).toFixed(1)}%)`,
      all: `${rows.filter((r) => r.ok).length}/${rows.length} (${(rate(rows) * 100).toFixed(1)}%)`,
      screenshots: `${(rate(rows.filter((r) => r.image.params.kind === 'screenshot')) * 100).toFixed(1)}%`,
      camera: `${(rate(rows.filter((r) => r.image.params.kind === 'camera')) * 100).toFixed(1)}%`,
      firstAttempt: `${rows.filter((r) => r.attempts === 1).length}/${rows.length}`,
      byJsQr: rows.filter((r) => r.ok && r.byJsQr).length,
      missed: rows.filter((r) => !r.ok).map((r) => `${r.image.name}${r.image.reasonable ? '' : ' (beyond reasonable)'}`),
    };
    console.log('slip image decode rate', JSON.stringify(report, null, 2));
    expect(reasonable.length).toBeGreaterThan(COUNT * 0.6);
    expect(rate(reasonable)).toBeGreaterThanOrEqual(FLOOR);
    // Even past what a phone should produce (tiny, very blurred QRs) most still read.
    expect(rate(rows)).toBeGreaterThanOrEqual(0.9);
    // Three of these (tiny, blurred, turned 90°) only jsQR reads, after ZXing found their QR and could not
    // read it: giving up early on pictures where ZXing sees no QR at all must not cost them.
    expect(rows.filter((r) => r.ok && r.byJsQr).length).toBeGreaterThanOrEqual(3);
  });

  it('the browser decoder (jsQR on RGBA pixels, no sharp) reads every screenshot', { timeout: 60_000 }, async () => {
    const screenshots = set.filter((s) => s.params.kind === 'screenshot');
    expect(screenshots.length).toBeGreaterThan(10);
    for (const shot of screenshots) {
      const { data, info } = await sharp(shot.image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(findQrInPixels({ data, width: info.width, height: info.height }), shot.name).toBe(shot.qrcode);
    }
  });

  it('says no QR for an image without one, and refuses what is not an image', async () => {
    const blank = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#eeeeee' } }).jpeg().toBuffer();
    expect(await decodeSlipImage(blank)).toBeNull();
    await expect(decodeSlipImage(Buffer.from('not an image'))).rejects.toBeInstanceOf(SlipImageError);
  });

  it("gives up on a picture without a QR after ZXing's looks; jsQR's (seconds of CPU) are for a QR ZXing found but could not read", { timeout: 60_000 }, async () => {
    const looksAt = async (picture: Buffer) => {
      const looks: unknown[] = [];
      const found = await decodeSlipImageDetailed(picture, { onAttempt: (a) => looks.push(typeof a === 'string' ? a : 'jsQR') });
      return { qrcode: found?.qrcode ?? null, looks };
    };
    const noise = await sharp({ create: { width: 900, height: 1200, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .jpeg()
      .toBuffer();
    const product = await sharp({ create: { width: 1080, height: 1440, channels: 3, background: '#f3efe6' } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#234"/><circle cx="300" cy="200" r="150" fill="#eee"/><text x="40" y="380" font-size="60" fill="#fc0">SALE 50%</text></svg>'), left: 240, top: 500 }])
      .png()
      .toBuffer();
    for (const picture of [noise, product]) expect(await looksAt(picture)).toEqual({ qrcode: null, looks: ['first-look', 'zxing-file', 'zxing-pixels'] });
    const damaged = await looksAt(await unreadableQrPicture(700));
    expect(damaged.qrcode).toBeNull();
    expect(damaged.looks.slice(0, 3)).toEqual(['first-look', 'zxing-file', 'zxing-pixels']);
    expect(damaged.looks.filter((l) => l === 'jsQR').length).toBeGreaterThan(5);
  });

  it('reads gray, palette and 16-bit PNGs on the first look', async () => {
    const shot = set.find((s) => s.params.kind === 'screenshot')!;
    const gray = await sharp(shot.image).extractChannel(1).raw().toBuffer({ resolveWithObject: true });
    const { width, height } = gray.info;
    const withAlpha = Buffer.alloc(width * height * 2, 255);
    gray.data.forEach((v, i) => (withAlpha[i * 2] = v));
    const variants = {
      rgba: await sharp(shot.image).ensureAlpha().png().toBuffer(),
      gray: await sharp(gray.data, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
      'gray+alpha': await sharp(withAlpha, { raw: { width, height, channels: 2 } }).toColourspace('b-w').png().toBuffer(),
      palette: await sharp(shot.image).png({ palette: true }).toBuffer(),
      '16-bit': await sharp(shot.image).toColourspace('rgb16').png().toBuffer(),
    };
    // The layouts as the files really are (colour type at byte 25, bit depth at 24).
    expect(Object.fromEntries(Object.entries(variants).map(([k, b]) => [k, [b[24], b[25]]]))).toEqual({ rgba: [8, 6], gray: [8, 0], 'gray+alpha': [8, 4], palette: [8, 3], '16-bit': [16, 2] });
    for (const [name, bytes] of Object.entries(variants)) {
      const found = await decodeSlipImageDetailed(bytes);
      expect({ name, qrcode: found?.qrcode, attempt: found?.attempt }).toEqual({ name, qrcode: shot.qrcode, attempt: 'first-look' });
    }
  });

  it('follows EXIF orientation of phone photos', async () => {
    const upright = set.find((s) => s.params.kind === 'screenshot')!;
    // Stored sideways with orientation 6 ("rotate 90° to view"), as phones do.
    const sideways = await sharp(upright.image).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    expect((await sharp(sideways).metadata()).orientation).toBe(6);
    expect(await decodeSlipImage(sideways)).toBe(upright.qrcode);
  });
});
