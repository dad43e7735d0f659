// The image pool moves a picture that is the whole of its memory to its
// thread instead of copying it (src/images/decode-pool.ts), and copies one
// that shares its memory, whose neighbours must stay as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageDecodePool } from '../../src/images/decode-pool.js';
import { generateSlipImages, type SlipImage } from './slip-images.js';

describe('the image pool and the memory of the pictures it is given', () => {
  let pool: ImageDecodePool;
  let slip: SlipImage;

  beforeAll(async () => {
    slip = (await generateSlipImages(1))[0]!;
    pool = new ImageDecodePool({ workers: 1, queueMax: 4, timeoutMs: 60_000, maxPixels: 40_000_000 });
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('moves a picture that owns its whole buffer: read, and the caller\'s copy is left empty', async () => {
    const own = new Uint8Array(new ArrayBuffer(slip.image.length));
    own.set(slip.image);
    expect(await pool.decode(own)).toEqual({ kind: 'qrcode', qrcode: slip.qrcode });
    expect(own.byteLength).toBe(0);
  }, 60_000);

  it('copies a picture that is part of a larger buffer: read, and the bytes around it and the picture itself are untouched', async () => {
    const before = Buffer.from('form field before the file;');
    const after = Buffer.from(';and after it');
    const whole = Buffer.concat([before, slip.image, after]);
    const copy = Buffer.from(whole);
    const part = whole.subarray(before.length, before.length + slip.image.length);
    expect(await pool.decode(part)).toEqual({ kind: 'qrcode', qrcode: slip.qrcode });
    expect(part.byteLength).toBe(slip.image.length);
    expect(whole.equals(copy)).toBe(true);
  }, 60_000);
});
