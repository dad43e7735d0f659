// Reads a dropped slip photo in the browser: draw it on a canvas, find the QR
// with jsQR (src/slip-image/qr-from-pixels, shared with the server and the
// SDK) and parse it with the server's own slip QR parser (tag 00 → 01 bank,
// 02 transRef).
import { findQrInPixels } from '../../src/slip-image/qr-from-pixels.js';
import { parseSlipQr, type SlipRef } from '../../src/domain/verify/slip-qr.js';
import { t } from './i18n/index.js';

export type SlipImageResult = { ok: true; slip: SlipRef; qrcode: string } | { ok: false; reason: string };

/** Camera photos are huge; jsQR is quicker and no worse on a smaller copy. */
const MAX_SIDE = 2000;

export async function readSlipImage(file: File): Promise<SlipImageResult> {
  if (file.type && !file.type.startsWith('image/')) return { ok: false, reason: t().slipImage.notImage(file.name, file.type) };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { ok: false, reason: t().slipImage.cannotOpen(file.name) };
  }
  const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  if (!g) return { ok: false, reason: t().slipImage.noCanvas };
  // White first: transparent PNGs would otherwise read as black.
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const qrcode = findQrInPixels({ data: g.getImageData(0, 0, width, height).data, width, height });
  if (!qrcode) return { ok: false, reason: t().slipImage.noQr };
  const parsed = parseSlipQr(qrcode);
  if (!parsed.ok) return { ok: false, reason: t().slipImage.notSlip(parsed.reason) };
  return { ok: true, slip: parsed.slip, qrcode };
}
