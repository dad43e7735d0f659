// The checkout page's framed QR picture, drawn once per payment request and
// kept (about 40 ms of CPU each, and a customer's page loads it on every
// visit): a request's PromptPay payload and amount never change, so one
// picture serves every load. Bounded: the least recently shown go first.
// Two loads at once share one drawing (the promise is what is kept).
import { framedQrPng } from './qr-frame.js';

export type DrawQr = typeof framedQrPng;

/** A framed picture is about 20 KB: 256 of them are a few MB at most. */
const DEFAULT_MAX_PICTURES = 256;

export class QrPictures {
  private readonly kept = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly draw: DrawQr = framedQrPng,
    private readonly max = DEFAULT_MAX_PICTURES,
  ) {}

  /** The picture of `payload` with its caption; the shop's name is part of the key (a rename shows). */
  of(requestId: string, payload: string, caption: { amount: string; shop: string }): Promise<Buffer> {
    const key = JSON.stringify([requestId, payload, caption.amount, caption.shop]);
    const found = this.kept.get(key);
    if (found) {
      // Seen again: the most recently shown, last to go.
      this.kept.delete(key);
      this.kept.set(key, found);
      return found;
    }
    const drawn = this.draw(payload, caption);
    this.kept.set(key, drawn);
    // A drawing that failed is not kept: the next load draws again.
    drawn.catch(() => {
      if (this.kept.get(key) === drawn) this.kept.delete(key);
    });
    while (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
    return drawn;
  }
}
