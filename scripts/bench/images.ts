// Scenario I: a flood of slip pictures (a 1080×2340 phone screenshot, read by
// the server's image pool) while QR-text verifications keep arriving at a
// steady rate beside it. Prints images/s and the QR-text latencies: the pool
// must cost the text path no more than its share of the CPU.
import sharp from 'sharp';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { renderSlipImage } from '../../test/images/slip-images.js';
import { runLoad, type LoadResult } from './load.js';

export interface ImageRunResult {
  images: { sent: number; verified: number; refused429: number; other: number; perSec: number };
  /** The QR texts sent beside the pictures; null when the pictures ran alone (qrcodeRate 0). */
  qrcode: LoadResult | null;
}

/** A phone screenshot of a banking app's slip: the slip card on a tall screen. */
export async function phoneScreenshot(qrcode: string): Promise<Buffer> {
  const params = { kind: 'screenshot', qrPx: 300, rotation: 0, shear: 0, blur: 0, quality: null, exposure: 1, header: '#138f2d' } as const;
  const card = await sharp(await renderSlipImage(params, qrcode, 7)).resize({ width: 1000 }).png().toBuffer();
  return sharp({ create: { width: 1080, height: 2340, channels: 3, background: '#eef1f4' } })
    .composite([{ input: card, top: 260, left: 40 }])
    .png()
    .toBuffer();
}

export async function runImageFlood(opts: {
  url: string;
  apiKeys: string[];
  durationSec: number;
  /** Pictures in flight at once (closed loop). */
  imageConcurrency: number;
  /** QR-text verifications per second beside the flood; 0 for pictures alone. */
  qrcodeRate: number;
}): Promise<ImageRunResult> {
  const body = JSON.stringify({ image: (await phoneScreenshot(sandboxQr())).toString('base64') });
  const images = { sent: 0, verified: 0, refused429: 0, other: 0, perSec: 0 };
  const endAt = Date.now() + opts.durationSec * 1000;
  let key = 0;
  const sender = async () => {
    while (Date.now() < endAt) {
      images.sent++;
      const res = await fetch(`${opts.url}/api/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': opts.apiKeys[key++ % opts.apiKeys.length]! },
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
