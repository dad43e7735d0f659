// Slip verification mini-QR: EMV-style TLV with tag 00 (00=000001, 01=bank,
// 02=transRef), tag 51=TH and tag 91=CRC-16/CCITT-FALSE. promptparse does the
// TLV and CRC work (and pads a CRC whose leading zeros a bank app dropped);
// we add the checks it leaves out.
import { parse } from 'promptparse';
import { slipVerify } from 'promptparse/validate';

export interface SlipRef {
  sendingBank: string;
  /**
   * The slip's identity: its reference in upper case (slipReference), the
   * one spelling every record, lookup and uniqueness rule sees.
   */
  transRef: string;
}

export type SlipParseResult = { ok: true; slip: SlipRef } | { ok: false; reason: string };

/** Longest slip QR we accept; real ones are under 70 characters. */
export const MAX_QR_LENGTH = 512;

const BANK_CODE = /^\d{3}$/;
const TRANS_REF = /^[A-Za-z0-9]{1,64}$/;

export function parseSlipQr(input: string): SlipParseResult {
  const payload = input.trim();
  if (payload.length === 0) return { ok: false, reason: 'QR code is empty' };
  if (payload.length > MAX_QR_LENGTH) return { ok: false, reason: 'QR code is too long' };
  // Slip QRs are letters and digits only. This also keeps a sign out of the
  // TLV length fields: promptparse's decoder loops forever (and fills memory)
  // on a negative length such as "91-4".
  if (!/^[0-9A-Za-z]+$/.test(payload)) return { ok: false, reason: 'QR code has characters a slip QR never has' };

  const slip = safe(() => slipVerify(payload, true));
  if (!slip) {
    return { ok: false, reason: describeFailure(payload) };
  }
  const country = safe(() => parse(padCrc(payload), false)?.getTagValue('51'));
  if (country !== 'TH') return { ok: false, reason: 'not a Thai bank slip QR (country tag is not TH)' };
  if (!BANK_CODE.test(slip.sendingBank)) return { ok: false, reason: 'sending bank code is not 3 digits' };
  if (!TRANS_REF.test(slip.transRef)) return { ok: false, reason: 'transaction reference is malformed' };
  return { ok: true, slip: { sendingBank: slip.sendingBank, transRef: slipReference(slip.transRef) } };
}

/**
 * The reference that identifies a slip. Banks print references in either
 * case and look them up without regard to it (bank-answer.ts accepts an
 * answer that differs only in case), so "abc1" and "ABC1" are one transfer:
 * re-casing the letters of a QR (and fixing its CRC) must not make a new
 * slip. References are ASCII letters and digits (TRANS_REF), so upper-casing
 * folds nothing else.
 */
export function slipReference(transRef: string): string {
  return transRef.toUpperCase();
}

/**
 * The reference as the QR writes it, which the bank is asked with: a bank
 * that did tell the cases apart knows its slip by its own spelling, the one
 * it printed. `slip` when the QR does not name it (never for a parsed slip).
 */
export function writtenReference(qrcode: string, slip: SlipRef): string {
  const written = safe(() => slipVerify(qrcode.trim(), true))?.transRef;
  return written !== undefined && slipReference(written) === slip.transRef ? written : slip.transRef;
}

function describeFailure(payload: string): string {
  const tags = safe(() => parse(padCrc(payload), false));
  if (!tags) return 'not a slip QR code (cannot be decoded)';
  if (tags.getTagValue('00', '00') !== '000001') return 'not a bank slip verification QR code';
  return 'QR code checksum does not match';
}

/** Mirrors promptparse's fix for bank apps that drop the CRC's leading zeros. */
function padCrc(payload: string): string {
  const idx = payload.lastIndexOf('9104');
  if (idx === -1) return payload;
  const crc = payload.slice(idx + 4);
  return crc.length > 0 && crc.length < 4 ? payload.slice(0, idx + 4) + crc.padStart(4, '0') : payload;
}

function safe<T>(fn: () => T): T | null {
  try {
    return fn() ?? null;
  } catch {
    return null;
  }
}

/** The tags (and tag 00's sub-tags) of a slip QR that name nothing but the transfer. */
const REFERENCE_TAGS = new Set(['00', '51', '91']);
const REFERENCE_SUBTAGS = new Set(['00', '01', '02']);

/**
 * True when the QR text is a slip QR holding only the sending bank, the
 * transaction reference, the country and the checksum. Anything else (an
 * unknown tag, text that is not a slip QR) may carry more, e.g. a name.
 */
export function slipQrHoldsOnlyReference(input: string): boolean {
  if (!parseSlipQr(input).ok) return false;
  const tags = safe(() => parse(padCrc(input.trim()), false, true)?.getTags());
  if (!tags) return false;
  return tags.every((tag) => REFERENCE_TAGS.has(tag.id) && (tag.id !== '00' || (tag.subTags ?? []).every((sub) => REFERENCE_SUBTAGS.has(sub.id))));
}
