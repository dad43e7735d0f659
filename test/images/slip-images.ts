// Generated slip photos for the QR decode-rate test . Each image is a
// sandbox slip QR rendered with `qrcode`, placed on a slip-like card (bank
// header, text, amount) with sharp, then photographed: tilted, sheared a
// little for perspective, lit unevenly, blurred and JPEG-compressed.
// Deterministic: the same seed gives the same images.
import QRCode from 'qrcode';
import sharp, { type Sharp } from 'sharp';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { sandboxTransRef } from '../../src/upstream/sandbox/transaction.js';

export interface SlipImageParams {
  kind: 'screenshot' | 'camera';
  /** Width of the QR in the final image, in pixels. */
  qrPx: number;
  /** Degrees. */
  rotation: number;
  /** Horizontal shear (affine), a cheap stand-in for perspective. */
  shear: number;
  /** Gaussian blur sigma in final-image pixels; 0 = sharp. */
  blur: number;
  /** JPEG quality; null = PNG. */
  quality: number | null;
  /** Brightness multiplier (camera exposure). */
  exposure: number;
  /** Dark app theme (light QR on dark card is not used by banks; the card is). */
  header: string;
}

export interface SlipImage {
  name: string;
  qrcode: string;
  params: SlipImageParams;
  image: Buffer;
  /**
   * Inside what a phone reasonably produces: the QR has at least ~3 px per
   * module after blur and JPEG. The decode-rate floor applies to these.
   */
  reasonable: boolean;
}

const BANK_COLORS = ['#138f2d', '#4e2e7f', '#1e4598', '#fcb813', '#0a7ea4'];

/** mulberry32: small, seedable, good enough for choosing test parameters. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Parameters of `count` images, spread over sizes, angles, blur and quality. */
function slipImagePlan(count: number, seed = 9): SlipImageParams[] {
  const r = rng(seed);
  const plan: SlipImageParams[] = [];
  for (let i = 0; i < count; i++) {
    const screenshot = i % 4 === 0;
    plan.push(
      screenshot
        ? {
            kind: 'screenshot',
            qrPx: pick(r, [150, 200, 260, 320]),
            rotation: 0,
            shear: 0,
            blur: 0,
            quality: pick(r, [null, 92, 75]),
            exposure: 1,
            header: pick(r, BANK_COLORS),
          }
        : {
            kind: 'camera',
            qrPx: pick(r, [110, 140, 180, 240, 320]),
            rotation: pick(r, [0, 3, -6, 10, -15, 25, 45, 90, 180, -90]) + (r() - 0.5) * 4,
            shear: (r() - 0.5) * 0.12,
            blur: pick(r, [0, 0.6, 1, 1.5, 2]),
            quality: pick(r, [90, 80, 65, 50, 35]),
            exposure: 0.75 + r() * 0.4,
            header: pick(r, BANK_COLORS),
          },
    );
  }
  return plan;
}

/** Rough px per QR module left after blur: what decides whether it is readable. */
function isReasonable(p: SlipImageParams): boolean {
  const modulePx = p.qrPx / 37; // version 3 (29 modules) + quiet zone of 4
  return modulePx - p.blur * 1.2 >= 2.2 && (p.quality ?? 100) >= 35;
}

export async function renderSlipImage(p: SlipImageParams, qrcode: string, seed: number): Promise<Buffer> {
  const qrPng = await QRCode.toBuffer(qrcode, { errorCorrectionLevel: 'M', margin: 2, width: p.qrPx, color: { dark: '#111111', light: '#ffffff' } });
  const qrMeta = await sharp(qrPng).metadata();
  const qrSide = qrMeta.width;
  // Real slips: the QR sits in a lower corner and is about a quarter of the slip's width.
  const cardW = Math.round(qrSide * 3.6);
  const cardH = Math.round(cardW * 1.55);
  const card = await sharp(Buffer.from(cardSvg(cardW, cardH, p.header, seed)))
    .composite([{ input: qrPng, left: cardW - qrSide - Math.round(cardW * 0.06), top: cardH - qrSide - Math.round(cardH * 0.05) }])
    .png({ compressionLevel: 0 })
    .toBuffer();
  if (p.kind === 'screenshot') return encode(sharp(card), p);

  // A photo: the card lies on a table, the phone is tilted and not square-on.
  // Intermediate steps pass raw pixels: PNG round trips dominated the cost.
  const r = rng(seed);
  const margin = Math.round(cardW * (0.08 + r() * 0.2));
  const table = { r: 70 + Math.round(r() * 90), g: 60 + Math.round(r() * 70), b: 50 + Math.round(r() * 60) };
  let step = await sharp(card)
    .removeAlpha()
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: table })
    .affine([
      [1, p.shear],
      [0, 1],
    ], { background: table, interpolator: 'bilinear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  step = await fromRaw(step).rotate(p.rotation, { background: table }).raw().toBuffer({ resolveWithObject: true });
  // Uneven light: a soft gradient multiplied over the whole photo.
  const { width, height } = step.info;
  const light = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="${r()}" y1="0" x2="${r()}" y2="1">` +
      `<stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#b8b8b8"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  // Sensor noise, stronger in darker shots.
  const noise = await noiseTile(Math.round(10 + (1.15 - p.exposure) * 30));
  step = await fromRaw(step)
    .composite([
      { input: light, blend: 'multiply' },
      { input: noise, blend: 'soft-light', tile: true },
    ])
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let img = fromRaw(step).linear(p.exposure, 0);
  if (p.blur > 0) img = img.blur(Math.max(0.3, p.blur));
  return encode(img, p);
}

const noiseTiles = new Map<string, Promise<Buffer>>();

/**
 * A small tile of gaussian noise, repeated over the photo (full-size noise is
 * slow). Drawn from the seeded generator, not libvips' own noise (a new seed
 * every call): a picture at the edge of what the decoder reads must be read,
 * or missed, on every run.
 */
export function noiseTile(sigma: number, width = 257, height = 263): Promise<Buffer> {
  const key = `${sigma}:${width}x${height}`;
  let tile = noiseTiles.get(key);
  if (!tile) {
    const r = rng(sigma * 7919 + width * 31 + height);
    const pixels = Buffer.alloc(width * height * 3);
    for (let i = 0; i < pixels.length; i++) {
      // Box-Muller: two uniform draws, one normal one.
      const normal = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
      pixels[i] = Math.max(0, Math.min(255, Math.round(128 + sigma * normal)));
    }
    tile = sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
    noiseTiles.set(key, tile);
  }
  return tile;
}

function fromRaw(step: { data: Buffer; info: { width: number; height: number; channels: number } }): Sharp {
  return sharp(step.data, { raw: { width: step.info.width, height: step.info.height, channels: step.info.channels as 1 | 2 | 3 | 4 } });
}

function encode(img: Sharp, p: SlipImageParams): Promise<Buffer> {
  return p.quality === null ? img.png().toBuffer() : img.jpeg({ quality: p.quality, chromaSubsampling: '4:2:0' }).toBuffer();
}

function cardSvg(w: number, h: number, header: string, seed: number): string {
  const r = rng(seed * 31 + 7);
  const u = w / 100;
  const lines: string[] = [];
  for (let i = 0; i < 7; i++) {
    const y = h * 0.24 + i * u * 7.5;
    lines.push(`<rect x="${6 * u}" y="${y}" width="${(20 + r() * 25) * u}" height="${2.2 * u}" rx="${u}" fill="#9aa0a6"/>`);
    lines.push(`<text x="${55 * u}" y="${y + 2.4 * u}" font-family="DejaVu Sans" font-size="${3.2 * u}" fill="#222">${['MR. SOMCHAI J', 'xxx-x-x1234-x', 'KBANK', 'DEEDEE COFFEE', '014 SCB', 'Ref 015278121420', 'Fee 0.00'][i]}</text>`);
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">` +
    `<rect width="100%" height="100%" fill="#f7f9f7"/>` +
    `<rect width="100%" height="${h * 0.14}" fill="${header}"/>` +
    `<circle cx="${12 * u}" cy="${h * 0.07}" r="${5.5 * u}" fill="#ffffff" opacity="0.9"/>` +
    `<text x="${22 * u}" y="${h * 0.085}" font-family="DejaVu Sans" font-weight="bold" font-size="${5 * u}" fill="#fff">Transfer successful</text>` +
    `<text x="${6 * u}" y="${h * 0.2}" font-family="DejaVu Sans" font-size="${4 * u}" fill="#555">5 Oct 25 22:09</text>` +
    lines.join('') +
    `<text x="${6 * u}" y="${h * 0.8}" font-family="DejaVu Sans" font-size="${4 * u}" fill="#555">Amount</text>` +
    `<text x="${6 * u}" y="${h * 0.88}" font-family="DejaVu Sans" font-weight="bold" font-size="${8 * u}" fill="#111">250.00 THB</text>` +
    `<text x="${6 * u}" y="${h * 0.95}" font-family="DejaVu Sans" font-size="${2.6 * u}" fill="#888">Scan to verify the slip</text>` +
    `</svg>`
  );
}

const TAIL_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The whole generated set; `count` images from `seed`. */
export async function generateSlipImages(count: number, seed = 9): Promise<SlipImage[]> {
  const plan = slipImagePlan(count, seed);
  const out: SlipImage[] = [];
  const r = rng(seed * 7 + 3);
  const tail = () => Array.from({ length: 11 }, () => TAIL_CHARS[Math.floor(r() * TAIL_CHARS.length)]).join('');
  for (const [i, params] of plan.entries()) {
    // The QR's content is seeded too: a rate that moves means the decoder changed.
    const qrcode = slipQr('004', sandboxTransRef((1 + i) * 100, 'success', tail()));
    const image = await renderSlipImage(params, qrcode, seed * 1000 + i);
    const name = `${String(i).padStart(3, '0')}-${params.kind}-${params.qrPx}px-rot${Math.round(params.rotation)}-blur${params.blur}-${params.quality === null ? 'png' : `q${params.quality}`}`;
    out.push({ name, qrcode, params, image, reasonable: isReasonable(params) });
  }
  return out;
}
