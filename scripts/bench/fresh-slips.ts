// Bench L's LINE path sends every message a slip of its own: on LINE a slip
// the account verified once is answered "sent before" whoever sends it
// (#47), so a repeated picture would measure a lookup, not a verification.
// A whole phone screenshot takes ~190 ms to draw; a fresh one here is the
// same screenshot drawn once, its QR covered by another slip's QR (~30 ms),
// so a pool big enough for a measured run is drawn before it, not beside it.
import QRCode from 'qrcode';
import sharp, { type OutputInfo } from 'sharp';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { phoneScreenshot, SCREENSHOT_QR } from './images.js';

/** White drawn around the new QR, so that no edge of the one it covers is left. */
const COVER_PX = 6;

export class FreshSlipPictures {
  private readonly pool: Buffer[] = [];
  private amount = 0;
  /** Pictures drawn while a run waited (the pool ran dry): the run says so. */
  drawnLate = 0;

  private constructor(private readonly base: { data: Buffer; info: OutputInfo }) {}

  static async create(): Promise<FreshSlipPictures> {
    const screenshot = await phoneScreenshot(sandboxQr({ amount: 100 }));
    return new FreshSlipPictures(await sharp(screenshot).raw().toBuffer({ resolveWithObject: true }));
  }

  get pooled(): number {
    return this.pool.length;
  }

  /** Draws until the pool holds `count`, two at a time (sharp's threads do the rest). */
  async fill(count: number): Promise<void> {
    let wanted = count - this.pool.length;
    const lane = async () => {
      while (wanted-- > 0) this.pool.push(await this.draw());
    };
    await Promise.all([lane(), lane()]);
  }

  /** A picture of a slip no earlier call returned. */
  async next(): Promise<Buffer> {
    const pooled = this.pool.shift();
    if (pooled) return pooled;
    this.drawnLate++;
    return this.draw();
  }

  private async draw(): Promise<Buffer> {
    // Distinct amounts as well as distinct references: a reader of the chat tells them apart.
    const qrcode = sandboxQr({ amount: 100 + (this.amount++ % 10_000) * 0.25 });
    const { left, top, side } = SCREENSHOT_QR;
    const qr = await QRCode.toBuffer(qrcode, { errorCorrectionLevel: 'M', margin: 2, width: side, color: { dark: '#111111', light: '#ffffff' } });
    const cover = await sharp({ create: { width: side + 2 * COVER_PX, height: side + 2 * COVER_PX, channels: 3, background: '#ffffff' } }).png().toBuffer();
    return sharp(this.base.data, { raw: this.base.info })
      .composite([
        { input: cover, left: left - COVER_PX, top: top - COVER_PX },
        { input: qr, left, top },
      ])
      .png()
      .toBuffer();
  }
}
