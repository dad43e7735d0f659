// QR decoding from raw RGBA pixels with jsQR only: no Node APIs, so a browser
// (e.g. the dashboard's "drop a slip image") can use it on canvas ImageData.
import * as jsqrModule from 'jsqr';

export interface Pixels {
  /** RGBA, 4 bytes per pixel, row by row. */
  data: Uint8ClampedArray | Uint8Array;
  width: number;
  height: number;
}

type JsQr = (data: Uint8ClampedArray, width: number, height: number, options?: { inversionAttempts?: 'dontInvert' | 'onlyInvert' | 'attemptBoth' | 'invertFirst' }) => { data: string } | null;
// jsqr is CommonJS with a `default` in its types; bundlers and Node disagree on the shape.
const jsQR: JsQr = ((jsqrModule as unknown as { default?: JsQr }).default ?? (jsqrModule as unknown as JsQr)) as JsQr;

/** The QR text in one image, or null. Dark-mode (inverted) QRs are tried too. */
export function decodeQrFromPixels(p: Pixels): string | null {
  const data = p.data instanceof Uint8ClampedArray ? p.data : new Uint8ClampedArray(p.data.buffer, p.data.byteOffset, p.data.byteLength);
  if (data.length < p.width * p.height * 4) throw new Error('pixels must be RGBA: width * height * 4 bytes');
  const found = jsQR(data, p.width, p.height, { inversionAttempts: 'attemptBoth' });
  return found && found.data !== '' ? found.data : null;
}

/**
 * Browser-friendly attempts: the image as is, then halved and quartered
 * (jsQR reads big camera photos better smaller). Returns the first hit.
 */
export function findQrInPixels(p: Pixels): string | null {
  let current: Pixels = p;
  for (let i = 0; i < 3; i++) {
    const hit = decodeQrFromPixels(current);
    if (hit) return hit;
    if (Math.min(current.width, current.height) < 400) break;
    current = halve(current);
  }
  return null;
}

/** 2×2 box downscale. */
function halve(p: Pixels): Pixels {
  const width = Math.floor(p.width / 2);
  const height = Math.floor(p.height / 2);
  const out = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 4; c++) {
        const a = ((2 * y) * p.width + 2 * x) * 4 + c;
        const b = a + p.width * 4;
        out[(y * width + x) * 4 + c] = (p.data[a]! + p.data[a + 4]! + p.data[b]! + p.data[b + 4]! + 2) >> 2;
      }
    }
  }
  return { data: out, width, height };
}
