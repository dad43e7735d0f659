// Whether a LINE message carries a slip, found before anything is recorded,
// limited or charged: only such a message is answered on a quiet channel
// (docs/line.md#quiet-by-default). A text carries one when one of its words
// is a slip QR; a picture when the image pool finds a slip QR in it.
import type { AccountSlots } from '../keys/account-slots.js';
import type { ImageDecoder } from '../ports/images.js';
import { parseSlipQr, type SlipRef } from '../verify/slip-qr.js';
import { readSlipImage } from '../verify/image.js';
import { pictureBytes } from '../verify/image-body.js';

export type FoundSlip = { ok: true; qrcode: string; slip: SlipRef } | { ok: false };

/** The verify route's picture reader: the same pool, and the same per-account cap on pictures read at once. */
export interface PictureReader {
  decoder: ImageDecoder | undefined;
  slots: AccountSlots;
}

export type PictureSlip = FoundSlip | { ok: false; busy: true };

/** A slip QR in a text: the message itself, or one of its words (a customer may write around it). */
export function slipInText(text: string): FoundSlip {
  for (const word of text.split(/\s+/)) {
    if (word.length === 0) continue;
    const parsed = parseSlipQr(word);
    if (parsed.ok) return { ok: true, qrcode: word, slip: parsed.slip };
  }
  return { ok: false };
}

/**
 * The slip QR in a downloaded picture. A picture that is not a JPEG, PNG or
 * WebP, has too many pixels, or holds no slip QR carries no slip; `busy`:
 * it could not be read now (the pool or the account's cap is full).
 */
export async function slipInPicture(reader: PictureReader, accountId: string, bytes: Buffer): Promise<PictureSlip> {
  // The verify route's check of a picture's bytes: the decoder never sees other formats.
  if (!pictureBytes(bytes).ok) return { ok: false };
  const release = reader.slots.take(accountId);
  if (!release) return { ok: false, busy: true };
  const read = await readSlipImage(reader.decoder, bytes).finally(release);
  if (!read.ok) return read.unreadable || read.refused === 'bad_request' ? { ok: false } : { ok: false, busy: true };
  const parsed = parseSlipQr(read.qrcode);
  return parsed.ok ? { ok: true, qrcode: read.qrcode.trim(), slip: parsed.slip } : { ok: false };
}
