// Reads the QR of a slip photo or screenshot (PNG, JPEG, WebP, HEIC where
// libvips has it) in Node. The first look (first-look.ts) reads one channel
// of a smaller copy; what it misses goes through the looks below, as before
// it existed. The second look is ZXing-C++ (WebAssembly) on the
// file's own bytes: it decodes the PNG or JPEG and finds the QR in one pass,
// all on the calling thread, which the image pool runs at a lowered
// priority (the first look's decode, on libuv's threads, does not get it:
// first-look.ts says why that is paid). Only what
// it misses (and WebP, which the module cannot decode) goes through sharp:
// EXIF rotation, a grayscale working copy, a harder ZXing look, then, only
// when that look found a QR it could not read, jsQR over a few scales,
// contrast treatments and rotations, cheapest first.
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { firstLook } from './first-look.js';
import { readImageHeader } from './image-header.js';
import { decodeQrFromPixels } from './qr-from-pixels.js';
import { lookForQrs, readQrTexts } from './zxing-reader.js';

export class SlipImageError extends Error {
  override name = 'SlipImageError';
  constructor(
    message: string,
    /** `too_many_pixels`: larger than the decoder's pixel limit (a decompression bomb, or just huge). */
    readonly reason: 'not_image' | 'too_many_pixels' = 'not_image',
  ) {
    super(message);
  }
}

export interface DecodeOptions {
  /** Width × height above which an image is refused before it is decompressed. */
  maxPixels?: number;
  /** Told of each look as it starts (for tests and the decode-rate report: which looks a picture cost). */
  onAttempt?: (attempt: DecodedSlipImage['attempt']) => void;
}

/** Longest side of each attempt; slips are read best around 800–1200 px. */
const SCALES = [1000, 1400, 700, 2000, 500];
/** jsQR copes with tilts itself; a 45° turn helps with the hardest ones. */
const ROTATIONS = [0, 45];
/** Grayscale working copy every attempt starts from. */
const WORKING_MAX = 2400;
/**
 * Largest picture ZXing decodes from the file itself. Bigger ones (camera
 * originals) are shrunk by sharp first, which JPEG decoding does cheaply
 * while it decompresses, and which keeps the WebAssembly heap small.
 */
const DIRECT_MAX_PIXELS = 12_000_000;
const DEFAULT_MAX_PIXELS = 100_000_000;

export interface DecodeAttempt {
  maxSide: number;
  rotation: number;
  /** Unsharp mask: helps with blur. */
  sharpen: boolean;
  /** Contrast stretch: helps dim photos, hurts clean ones (so never first). */
  normalise: boolean;
}

/** Cheapest and likeliest first: most photos read on the first attempt. */
const PLAN: DecodeAttempt[] = [
  ...SCALES.map((maxSide) => ({ maxSide, rotation: 0, sharpen: false, normalise: false })),
  ...[1000, 1400, 700].map((maxSide) => ({ maxSide, rotation: 0, sharpen: true, normalise: false })),
  ...[1000, 1400].map((maxSide) => ({ maxSide, rotation: 0, sharpen: false, normalise: true })),
  ...ROTATIONS.slice(1).flatMap((rotation) => [1000, 1400].map((maxSide) => ({ maxSide, rotation, sharpen: false, normalise: false }))),
];

export interface DecodedSlipImage {
  qrcode: string;
  /** Which attempt read it (for tuning and for the decode-rate report): a ZXing look or a jsQR attempt. */
  attempt: DecodeAttempt | 'first-look' | 'zxing-file' | 'zxing-pixels';
  attempts: number;
}

interface Gray {
  data: Buffer;
  width: number;
  height: number;
}

/** The slip QR text of an image, or null when no QR could be read. */
export async function decodeSlipImage(input: Buffer | Uint8Array | string, options: DecodeOptions = {}): Promise<string | null> {
  return (await decodeSlipImageDetailed(input, options))?.qrcode ?? null;
}

export async function decodeSlipImageDetailed(input: Buffer | Uint8Array | string, options: DecodeOptions = {}): Promise<DecodedSlipImage | null> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const bytes = typeof input === 'string' ? await readFile(input) : input;
  // The size from the header, before any decoder allocates a pixel (decompression bombs).
  const header = readImageHeader(bytes);
  if (header && header.width * header.height > maxPixels) throw tooManyPixels(maxPixels);
  let attempts = 0;
  const tried = (attempt: DecodedSlipImage['attempt']) => {
    attempts++;
    options.onAttempt?.(attempt);
  };
  if (header) {
    tried('first-look');
    const qrcode = await firstLook(bytes, header, maxPixels, isSlipQr);
    if (qrcode) return { qrcode, attempt: 'first-look', attempts };
  }
  if (header && header.format !== 'webp' && header.width * header.height <= DIRECT_MAX_PIXELS) {
    tried('zxing-file');
    // An empty answer is "no QR" or "not decodable": both go on to sharp, which tells them apart.
    // A QR that is not a slip's (an ad, a link) sends the picture on to the harder look, which reads several.
    const qrcode = (await readQrTexts(bytes, 'fast')).find(isSlipQr);
    if (qrcode) return { qrcode, attempt: 'zxing-file', attempts };
  }
  const working = await grayWorkingCopy(bytes, maxPixels);
  tried('zxing-pixels');
  const look = await lookForQrs(working, 'hard');
  const harder = slipQrOf(look.texts);
  if (harder) return { qrcode: harder, attempt: 'zxing-pixels', attempts };
  // jsQR's attempts (seconds of CPU in all) are for a QR ZXing found but could not read. Where ZXing's
  // hardest look found no QR at all, jsQR has found none either (test/images: every picture jsQR reads
  // shows ZXing an unread QR; none of the pictures without a QR does), and a shop's product photo,
  // sent to a LINE chat, is answered in tens of milliseconds instead.
  if (!look.sawUnreadQr) return null;
  const longest = Math.max(working.width, working.height);
  for (const attempt of PLAN) {
    // Enlarging far beyond the source only adds work.
    if (attempt.maxSide > longest * 1.5 && attempt.maxSide !== SCALES[0]) continue;
    tried(attempt);
    const qrcode = decodeQrFromPixels(await render(working, attempt));
    if (qrcode) return { qrcode, attempt, attempts };
  }
  return null;
}

function tooManyPixels(maxPixels: number): SlipImageError {
  return new SlipImageError(`image has more pixels than the limit of ${maxPixels}`, 'too_many_pixels');
}

/** A slip's mini QR is EMVCo TLV text starting `00`; another QR on a screenshot (an ad, a link) is not it. */
function isSlipQr(text: string): boolean {
  return /^00\d\d/.test(text);
}

/** The slip's QR when there is one, else whatever QR was read (the QR check then says what is wrong with it). */
function slipQrOf(texts: string[]): string | null {
  return texts.find(isSlipQr) ?? texts[0] ?? null;
}

async function grayWorkingCopy(bytes: Uint8Array, maxPixels: number): Promise<Gray> {
  try {
    // EXIF orientation first: phone photos are often stored sideways.
    const { data, info } = await sharp(bytes, { failOn: 'none', limitInputPixels: maxPixels })
      .autoOrient()
      .resize({ width: WORKING_MAX, height: WORKING_MAX, fit: 'inside', withoutEnlargement: true })
      .grayscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (err) {
    const message = (err as Error).message;
    if (/pixel limit/i.test(message)) throw tooManyPixels(maxPixels);
    throw new SlipImageError(`not a readable image: ${message}`);
  }
}

async function render(working: Gray, a: DecodeAttempt): Promise<{ data: Uint8Array; width: number; height: number }> {
  // Scale first, then turn: turning grows the canvas, and the QR must keep its size.
  let img = sharp(working.data, { raw: { width: working.width, height: working.height, channels: 1 } }).resize({ width: a.maxSide, height: a.maxSide, fit: 'inside' });
  if (a.rotation !== 0) {
    const scaled = await img.raw().toBuffer({ resolveWithObject: true });
    img = sharp(scaled.data, { raw: { width: scaled.info.width, height: scaled.info.height, channels: 1 } }).rotate(a.rotation, { background: '#ffffff' });
  }
  if (a.normalise) img = img.normalise();
  if (a.sharpen) img = img.sharpen({ sigma: 1.2 });
  const { data, info } = await img.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
