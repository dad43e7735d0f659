// A corpus of hard slip pictures, beside the phone-like set of slip-images.ts:
// what merchants' customers really send when it goes wrong. Eight kinds, a
// few of each (the last of each kind past what a phone should produce): tilted far, blurred, dim, a small QR in a tall screenshot,
// JPEG quality 40, WebP, a photo of a screen (pixel grid, glare, moiré), and
// a 12-megapixel camera photo (4000×3000 JPEG) of the slip on a screen or on
// paper, not square-on (an affine squeeze and shear standing in for
// perspective), with glare, the screen's moiré, uneven light and noise.
// Deterministic; the bench and test/images/hard-corpus.test.ts read it.
import sharp from 'sharp';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { sandboxTransRef } from '../../src/upstream/sandbox/transaction.js';
import { noiseTile, renderSlipImage, type SlipImageParams } from './slip-images.js';

export const HARD_KINDS = ['tilted', 'blurred', 'dim', 'small-in-tall-screenshot', 'jpeg-q40', 'webp', 'photo-of-screen', 'camera-12mp'] as const;
export type HardKind = (typeof HARD_KINDS)[number];

export interface HardSlipImage {
  name: string;
  kind: HardKind;
  qrcode: string;
  image: Buffer;
}

const camera = (p: Partial<SlipImageParams>): SlipImageParams => ({ kind: 'camera', qrPx: 220, rotation: 4, shear: 0.03, blur: 0.6, quality: 80, exposure: 0.95, header: '#138f2d', ...p });
const screenshot = (p: Partial<SlipImageParams>): SlipImageParams => ({ kind: 'screenshot', qrPx: 260, rotation: 0, shear: 0, blur: 0, quality: null, exposure: 1, header: '#4e2e7f', ...p });

type Variant = { params: SlipImageParams; finish?: (image: Buffer) => Promise<Buffer> };

const VARIANTS: Record<HardKind, Variant[]> = {
  tilted: [28, -52, 135, 200, 160].map((rotation, i) => ({ params: camera({ rotation, qrPx: i === 4 ? 115 : 170, shear: 0.1 - i * 0.05, blur: i === 4 ? 1.5 : 1 }) })),
  blurred: [2.2, 2.6, 3, 3.4, 4.2].map((blur) => ({ params: camera({ blur, qrPx: 230 }) })),
  dim: [0.2, 0.26, 0.33, 0.42, 0.12].map((exposure) => ({ params: camera({ exposure, qrPx: 200 }) })),
  'small-in-tall-screenshot': [
    [90, 1080, 2340],
    [105, 1080, 2400],
    [120, 1440, 3200],
    [140, 1170, 2532],
    [70, 1440, 3200],
  ].map(([qrPx, w, h]) => ({ params: screenshot({ qrPx: qrPx! }), finish: (img) => onTallScreen(img, w!, h!) })),
  'jpeg-q40': [
    { params: camera({ quality: 40, qrPx: 180 }) },
    { params: camera({ quality: 40, qrPx: 240, rotation: -9 }) },
    { params: screenshot({ quality: 40, qrPx: 200 }) },
    { params: screenshot({ qrPx: 180 }), finish: async (img) => sharp(await onTallScreen(img, 1080, 2340)).jpeg({ quality: 40 }).toBuffer() },
    { params: camera({ quality: 40, qrPx: 110, blur: 1 }) },
  ],
  webp: [
    { params: screenshot({ qrPx: 220 }), finish: (img) => sharp(img).webp({ quality: 80 }).toBuffer() },
    { params: screenshot({ qrPx: 160 }), finish: async (img) => sharp(await onTallScreen(img, 1080, 2340)).webp({ quality: 75 }).toBuffer() },
    { params: camera({ qrPx: 220 }), finish: (img) => sharp(img).webp({ quality: 70 }).toBuffer() },
    { params: camera({ qrPx: 260, rotation: 17 }), finish: (img) => sharp(img).webp({ lossless: true }).toBuffer() },
    { params: camera({ qrPx: 120, blur: 1.2 }), finish: (img) => sharp(img).webp({ quality: 40 }).toBuffer() },
  ],
  'photo-of-screen': [0, 1, 2, 3, 4].map((i) => ({ params: screenshot({ qrPx: i === 4 ? 110 : 200 + i * 30 }), finish: (img) => photoOfScreen(img, i) })),
  // The card is rendered small and enlarged into the photo: rendering it at the photo's size would cost more than reading it.
  'camera-12mp': [0, 1, 2, 3, 4].map((i) => ({ params: screenshot({ qrPx: 200 }), finish: (img) => cameraPhoto(img, i) })),
};

const CAMERA = { width: 4000, height: 3000 };
/**
 * The photo is composed at half its size and enlarged once at the end, as
 * soft as a phone's optics make it anyway: CI builds this corpus, and every
 * step at 12 megapixels costs.
 */
const COMPOSED = { width: CAMERA.width / 2, height: CAMERA.height / 2 };

/**
 * A 12-megapixel phone camera photo of the slip: on a screen (even i: pixel
 * grid, glare) or on paper (odd i: a desk around it, a shadow), held at an
 * angle, with sensor noise and a little blur, saved as the camera's JPEG.
 * The last one is the hardest: small in the frame, steep and dim.
 */
async function cameraPhoto(card: Buffer, i: number): Promise<Buffer> {
  const onScreen = i % 2 === 0;
  const cardHeight = [1250, 1100, 1000, 1300, 650][i]!;
  const background = onScreen ? '#1b1b1f' : '#6b5a48';
  let step = await sharp(card).removeAlpha().resize({ height: cardHeight }).png({ compressionLevel: 0 }).toBuffer({ resolveWithObject: true });
  if (onScreen) {
    const { width, height } = step.info;
    const glare = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0.6">` +
        `<stop offset="0.35" stop-color="#000000"/><stop offset="0.55" stop-color="#6e6e6e"/><stop offset="0.75" stop-color="#000000"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
    );
    step = await sharp(step.data)
      .composite([
        { input: await pixelGrid(2 + (i % 3)), blend: 'multiply', tile: true },
        { input: glare, blend: 'screen' },
      ])
      .flatten({ background: '#000000' })
      .png({ compressionLevel: 0 })
      .toBuffer({ resolveWithObject: true });
  }
  // Not square-on: squeezed along the line of sight and sheared, then turned.
  const tilted = await sharp(step.data)
    .affine([
      [1, 0.04 + i * 0.02],
      [0.02 * (i - 2), 0.86 - (i === 4 ? 0.1 : 0)],
    ], { background, interpolator: 'bilinear' })
    .rotate(-8 + i * 4, { background })
    .resize({ width: COMPOSED.width - 100, height: COMPOSED.height - 100, fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 0 })
    .toBuffer({ resolveWithObject: true });
  const light = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${COMPOSED.width}" height="${COMPOSED.height}"><defs><radialGradient id="g" cx="${0.3 + i * 0.1}" cy="0.4" r="0.9">` +
      `<stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="${i === 4 ? '#505050' : '#9a9a9a'}"/></radialGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  const noise = await noiseTile(16, 251, 257);
  const composed = await sharp({ create: { ...COMPOSED, channels: 3, background } })
    .composite([
      { input: tilted.data, left: Math.round((COMPOSED.width - tilted.info.width) * (0.2 + i * 0.15)), top: Math.round((COMPOSED.height - tilted.info.height) / 2) },
      { input: light, blend: 'multiply' },
      { input: noise, blend: 'soft-light', tile: true },
    ])
    .flatten({ background: '#000000' })
    .blur(0.6)
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Enlarged to the camera's 12 megapixels; encoding them is most of what the photo costs (~0.5 s).
  return sharp(composed.data, { raw: { width: composed.info.width, height: composed.info.height, channels: composed.info.channels } })
    .resize(CAMERA.width, CAMERA.height)
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** The slip in a phone's screenshot: a tall, mostly empty screen with the slip card somewhere in it. */
async function onTallScreen(card: Buffer, width: number, height: number): Promise<Buffer> {
  const resized = await sharp(card).resize({ width: Math.round(width * 0.9), height: Math.round(height * 0.7), fit: 'inside', withoutEnlargement: true }).toBuffer({ resolveWithObject: true });
  return sharp({ create: { width, height, channels: 3, background: '#f2f3f5' } })
    .composite([{ input: resized.data, top: Math.round(height * 0.12), left: Math.round((width - resized.info.width) / 2) }])
    .png()
    .toBuffer();
}

/**
 * A camera shot of the slip shown on another phone's or a monitor's screen:
 * the screen's pixel grid (moiré), a glare band, tilt, blur, sensor noise.
 */
async function photoOfScreen(shot: Buffer, seed: number): Promise<Buffer> {
  // Encoded between steps: sharp applies one rotation per pipeline, and SVG overlays want a plain sRGB input.
  const scaled = await sharp(shot).resize({ width: 1300 }).removeAlpha().png().toBuffer({ resolveWithObject: true });
  const { width, height } = scaled.info;
  const grid = await pixelGrid(3 + (seed % 2));
  const glare = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">` +
      `<stop offset="0.3" stop-color="#000000"/><stop offset="0.5" stop-color="#5a5a5a"/><stop offset="0.7" stop-color="#000000"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  const screen = await sharp(scaled.data)
    .composite([
      { input: grid, blend: 'multiply', tile: true },
      { input: glare, blend: 'screen' },
    ])
    .flatten({ background: '#000000' })
    .extend({ top: 120, bottom: 120, left: 120, right: 120, background: '#1b1b1f' })
    .png()
    .toBuffer();
  const sheared = await sharp(screen)
    .affine([
      [1, 0.05],
      [0.02, 1],
    ], { background: '#2a2a2e' })
    .png()
    .toBuffer();
  const tilted = await sharp(sheared).rotate(-7 + seed * 3, { background: '#2a2a2e' }).png().toBuffer();
  const noise = await noiseTile(18);
  return sharp(tilted)
    .composite([{ input: noise, blend: 'soft-light', tile: true }])
    .flatten({ background: '#000000' })
    .blur(0.9)
    .resize({ width: 1200 })
    .jpeg({ quality: 72 })
    .toBuffer();
}

/** One cell of a screen's pixel grid (dark lines between bright pixels), tiled over the photo. */
function pixelGrid(pitch: number): Promise<Buffer> {
  const cell = Buffer.alloc(pitch * pitch * 3, 0xff);
  for (let y = 0; y < pitch; y++) {
    for (let x = 0; x < pitch; x++) {
      if (x === 0 || y === 0) cell.fill(x === 0 ? 0x9a : 0xb0, (y * pitch + x) * 3, (y * pitch + x) * 3 + 3);
    }
  }
  return sharp(cell, { raw: { width: pitch, height: pitch, channels: 3 } }).png().toBuffer();
}

export async function generateHardSlipImages(seed = 26): Promise<HardSlipImage[]> {
  const out: HardSlipImage[] = [];
  let n = 0;
  for (const kind of HARD_KINDS) {
    for (const [i, variant] of VARIANTS[kind].entries()) {
      n++;
      const qrcode = slipQr('014', sandboxTransRef(seed * 1000 + n, 'success', `HARD${kind.slice(0, 3).toUpperCase()}${String(i).padStart(4, "0")}`));
      const rendered = await renderSlipImage(variant.params, qrcode, seed * 100 + n);
      const image = variant.finish ? await variant.finish(rendered) : rendered;
      out.push({ name: `${kind}-${i}`, kind, qrcode, image });
    }
  }
  return out;
}
