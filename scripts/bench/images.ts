// Scenario I: a flood of slip pictures (a 1080×2340 phone screenshot, read by
// the server's image pool) while QR-text verifications keep arriving at a
// steady rate beside it. Prints images/s and the QR-text latencies: the pool
// must cost the text path no more than its share of the CPU.
import sharp from 'sharp';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { renderSlipImage } from '../../test/images/slip-images.js';
import { runLoad, type LoadResult } from './load.js';

/** How a bench picture is sent: base64 in JSON's `image`, or its bytes as the raw body. */
export type PictureForm = 'json' | 'bytes';

export interface ImageRunResult {
  images: { sent: number; verified: number; refused429: number; other: number; perSec: number };
  /** The QR texts sent beside the pictures; null when the pictures ran alone (qrcodeRate 0). */
  qrcode: LoadResult | null;
}

/** The slip card's place on the screen, and its width there. */
const CARD = { left: 40, top: 260, width: 1000 };
const QR_PX = 300;

/** A phone screenshot of a banking app's slip: the slip card on a tall screen. */
export async function phoneScreenshot(qrcode: string): Promise<Buffer> {
  const params = { kind: 'screenshot', qrPx: QR_PX, rotation: 0, shear: 0, blur: 0, quality: null, exposure: 1, header: '#138f2d' } as const;
  const card = await sharp(await renderSlipImage(params, qrcode, 7)).resize({ width: CARD.width }).png().toBuffer();
  return sharp({ create: { width: 1080, height: 2340, channels: 3, background: '#eef1f4' } })
    .composite([{ input: card, top: CARD.top, left: CARD.left }])
    .png()
    .toBuffer();
}

/**
 * Where phoneScreenshot() puts the QR (its quiet zone included), as
 * renderSlipImage places it on the card (a QR_PX-wide QR in the lower right)
 * and the card is scaled onto the screen: fresh-slips.ts draws another there.
 */
export const SCREENSHOT_QR = (() => {
  const cardW = Math.round(QR_PX * 3.6);
  const cardH = Math.round(cardW * 1.55);
  const scale = CARD.width / cardW;
  return {
    left: Math.round(CARD.left + (cardW - QR_PX - Math.round(cardW * 0.06)) * scale),
    top: Math.round(CARD.top + (cardH - QR_PX - Math.round(cardH * 0.05)) * scale),
    side: Math.round(QR_PX * scale),
  };
})();

export async function runImageFlood(opts: {
  url: string;
  apiKeys: string[];
  durationSec: number;
  /** Pictures in flight at once (closed loop). */
  imageConcurrency: number;
  /** QR-text verifications per second beside the flood; 0 for pictures alone. */
  qrcodeRate: number;
  /** The picture and how it is sent; default a fresh phoneScreenshot() as base64 in JSON. */
  picture?: { bytes: Buffer; form: PictureForm };
}): Promise<ImageRunResult> {
  const picture = opts.picture ?? { bytes: await phoneScreenshot(sandboxQr()), form: 'json' as const };
  // Bytes: the raw body (docs/contract.md#slip-pictures); JSON: base64 in `image`, as before.
  const body = picture.form === 'json' ? JSON.stringify({ image: picture.bytes.toString('base64') }) : new Uint8Array(picture.bytes);
  const contentType = picture.form === 'json' ? 'application/json' : picture.bytes[0] === 0x89 ? 'image/png' : 'image/jpeg';
  const images = { sent: 0, verified: 0, refused429: 0, other: 0, perSec: 0 };
  const endAt = Date.now() + opts.durationSec * 1000;
  let key = 0;
  const sender = async () => {
    while (Date.now() < endAt) {
      images.sent++;
      const res = await fetch(`${opts.url}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-api-key': opts.apiKeys[key++ % opts.apiKeys.length]! },
        body,
      });
      const text = await res.text();
      if (res.status === 429) images.refused429++;
      else if (text.startsWith('{"status":"success"')) images.verified++;
      else images.other++;
    }
  };
  const started = Date.now();
  const [qrcode] = await Promise.all([
    opts.qrcodeRate <= 0 ? null : runLoad({
      url: opts.url,
      connections: Math.max(4, Math.ceil(opts.qrcodeRate / 20)),
      overallRate: opts.qrcodeRate,
      durationSec: opts.durationSec,
      apiKeys: opts.apiKeys,
      nextBody: () => `{"qrcode":"${sandboxQr()}"}`,
    }),
    ...Array.from({ length: opts.imageConcurrency }, sender),
  ]);
  images.perSec = images.verified / ((Date.now() - started) / 1000);
  return { images, qrcode };
}
