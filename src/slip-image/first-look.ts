// The first and cheapest look at a slip picture, before the looks of
// decode-image.ts. A slip's QR fills a large part of a screenshot or a photo
// of the slip, so most pictures read from one channel of a smaller copy:
// - sharp decodes only what is needed: one channel (green, close to the
//   luminance, or the gray of a gray file; a colourspace conversion would
//   cost several times the decode), and a JPEG at 1/2, 1/4 or 1/8 of its size
//   while it decompresses (libjpeg's scaled IDCT: a 12-megapixel photo costs
//   about what a screenshot does);
// - ZXing looks at a copy whose longer side is still about 1000 px or more
//   (a slip QR of 25–33 modules then keeps several pixels a module), then
//   at a larger one: for a PNG or WebP the full-size channel it already has,
//   for a JPEG shrunk by 4 or 8 one decoded at twice the size.
// What this look misses goes on to the full looks, which read what they read
// before: the first look can only add reads, never lose one.
//
// The decode runs on libuv's threads (sharp), at the normal priority, not on
// the image thread's lowered one: a few ms a picture, where ZXing's own
// WebAssembly decoder took two to three times that on the niced thread.
import sharp from 'sharp';
import type { ImageHeader } from './image-header.js';
import { readQrTexts, type GrayImage } from './zxing-reader.js';

/** The longer side the small copy keeps at least (before a shrink by 2 is taken). */
const SMALL_SIDE = 1000;
/** libjpeg shrinks by 2, 4 or 8 while decoding. */
const MAX_SHRINK = 8;

/** The largest power of two (≤ 8) the picture can be shrunk by and keep its longer side ≥ SMALL_SIDE. */
export function firstLookShrink(header: Pick<ImageHeader, 'width' | 'height'>): number {
  const longest = Math.max(header.width, header.height);
  let shrink = 1;
  while (shrink < MAX_SHRINK && longest / (shrink * 2) >= SMALL_SIDE) shrink *= 2;
  return shrink;
}

/**
 * The slip QR read by the first look, or null (missed, or a picture this
 * look does not take: CMYK, an unknown colour layout, a file sharp refuses).
 */
export async function firstLook(bytes: Uint8Array, header: ImageHeader, maxPixels: number, isSlipQr: (text: string) => boolean): Promise<string | null> {
  if (header.colour !== 'gray' && header.colour !== 'color') return null;
  const shrink = firstLookShrink(header);
  const read = async (image: GrayImage) => (await readQrTexts(image, 'fast')).find(isSlipQr) ?? null;
  try {
    if (header.format === 'jpeg') {
      const small = await read(await channel(bytes, header, maxPixels, shrink));
      // A camera photo with the slip far away: once more at twice the size (the full-size look comes next anyway).
      return small ?? (shrink >= 4 ? await read(await channel(bytes, header, maxPixels, shrink / 2)) : null);
    }
    const full = await channel(bytes, header, maxPixels, 1);
    if (shrink === 1) return await read(full);
    return (await read(shrunk(full, shrink))) ?? (await read(full));
  } catch {
    // The full looks decide what a file that does not decode is.
    return null;
  }
}

/** One 8-bit channel of the picture; a JPEG shrunk while it decodes. */
async function channel(bytes: Uint8Array, header: ImageHeader, maxPixels: number, shrink: number): Promise<GrayImage> {
  let pipeline = sharp(bytes, { failOn: 'none', limitInputPixels: maxPixels });
  if (shrink > 1) {
    // The scaled decode gives ceil(side / shrink); nearest leaves any remainder of a pixel as it is.
    pipeline = pipeline.resize({ width: Math.ceil(header.width / shrink), height: Math.ceil(header.height / shrink), fit: 'fill', kernel: 'nearest', fastShrinkOnLoad: true });
  }
  const { data, info } = await pipeline
    .extractChannel(header.colour === 'gray' ? 0 : 1)
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Box-filtered copy, `shrink` (a power of two) times smaller on each side: on this (niced) thread, a few ms. */
function shrunk(image: GrayImage, shrink: number): GrayImage {
  let current = image;
  for (let s = shrink; s > 1; s /= 2) current = halve(current);
  return current;
}

function halve({ data, width, height }: GrayImage): GrayImage {
  const w = width >> 1;
  const h = height >> 1;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const top = 2 * y * width;
    const bottom = top + width;
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const i = 2 * x;
      out[row + x] = (data[top + i]! + data[top + i + 1]! + data[bottom + i]! + data[bottom + i + 1]! + 2) >> 2;
    }
  }
  return { data: out, width: w, height: h };
}
