// Truncated and mutated PNG, JPEG and WebP files through the real image pool
// (its worker thread, ZXing's WebAssembly decoder, sharp): each must come back
// as a clear result (a QR, no QR, not an image, too many pixels, or out of
// time), never a rejected decode (a dead thread, a 503) or a hang, and the
// pool must still read a good picture afterwards.
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageDecodeResult } from '../../src/domain/ports/images.js';
import { ImageDecodePool } from '../../src/images/decode-pool.js';
import { generateSlipImages, type SlipImage } from '../images/slip-images.js';

const RUNS = { numRuns: 25 };
const CLEAR: ImageDecodeResult['kind'][] = ['qrcode', 'no_qr', 'not_image', 'too_many_pixels', 'timeout'];

type Format = 'png' | 'jpeg' | 'webp';

/** A file cut short, bytes overwritten, a run of bytes spliced in: what a broken upload or a hostile one looks like. */
const mutation = (length: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: 0, max: length - 1 }) }),
    fc.record({ kind: fc.constant('overwrite' as const), edits: fc.array(fc.tuple(fc.integer({ min: 0, max: length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 24 }) }),
    // The first 64 bytes hold the header: sizes, chunk lengths, markers.
    fc.record({ kind: fc.constant('header' as const), edits: fc.array(fc.tuple(fc.integer({ min: 0, max: Math.min(63, length - 1) }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant('splice' as const), at: fc.integer({ min: 0, max: length - 1 }), bytes: fc.uint8Array({ minLength: 1, maxLength: 512 }) }),
  );

type Mutation = { kind: 'truncate'; at: number } | { kind: 'overwrite' | 'header'; edits: [number, number][] } | { kind: 'splice'; at: number; bytes: Uint8Array };

function mutate(file: Buffer, m: Mutation): Buffer {
  if (m.kind === 'truncate') return file.subarray(0, m.at);
  if (m.kind === 'splice') return Buffer.concat([file.subarray(0, m.at), m.bytes, file.subarray(m.at)]);
  const out = Buffer.from(file);
  for (const [at, value] of m.edits) out[at] = value;
  return out;
}

describe('the image decoder on broken files', () => {
  let pool: ImageDecodePool;
  let slip: SlipImage;
  const files = {} as Record<Format, Buffer>;

  beforeAll(async () => {
    slip = (await generateSlipImages(1))[0]!;
    // Small pictures: a broken file without a QR runs every fallback, and there are many of them.
    const small = sharp(slip.image).resize({ width: 480 });
    files.png = await small.clone().png().toBuffer();
    files.jpeg = await small.clone().jpeg({ quality: 85 }).toBuffer();
    files.webp = await small.clone().webp({ quality: 85 }).toBuffer();
    pool = new ImageDecodePool({ workers: 1, queueMax: 4, timeoutMs: 20_000, maxPixels: 40_000_000 });
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it.each(['png', 'jpeg', 'webp'] as const)('%s: every mutation gets a clear answer, and the pool reads a good picture after', { timeout: 600_000 }, async (format) => {
    const file = files[format];
    // A copy each time: the pool takes a buffer that is the whole of its memory, and `file` is mutated below.
    expect((await pool.decode(Buffer.from(file))).kind).toBe('qrcode');
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(mutation(file.length), async (m) => {
        const result = await pool.decode(mutate(file, m));
        seen.add(result.kind);
        expect(CLEAR).toContain(result.kind);
      }),
      RUNS,
    );
    // Broken files were told apart from pictures without a QR, and the thread survived them.
    expect(seen.has('not_image') || seen.has('no_qr')).toBe(true);
    expect(await pool.decode(Buffer.from(file))).toEqual({ kind: 'qrcode', qrcode: slip.qrcode });
  });
});
