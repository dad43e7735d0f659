// What slipgate accepts from the verification network. A bank answer is an
// outside value: before it can charge a credit it must be about the very slip
// that was asked for, and complete enough to answer the caller truthfully.
// A misrouted or caching proxy, a confused load balancer or a faulty bank can
// answer "0000" with another transfer's data; accepting that would let a fake
// slip "verify" with someone else's real payment.
import { mapSlip, SlipMappingError } from './mapping.js';
import type { RawSlipData, VerifiedSlip } from '../types.js';
import { slipReference, type SlipRef } from './slip-qr.js';
import { UPSTREAM_MESSAGES } from '../errors.js';

/** The slip the QR names (what was asked): a 3-digit bank code and an ASCII letters-and-digits reference. */
export type AskedSlip = SlipRef;

export type BankAnswerVerdict =
  | { ok: true; slip: VerifiedSlip }
  | {
      ok: false;
      /** `upstream_mismatch`: about another slip; `upstream_error`: incomplete or malformed. */
      kind: 'upstream_mismatch' | 'upstream_error';
      message: string;
      /** What the bank named, for the operator's log (never shown to callers). */
      answered?: AskedSlip;
      /** A failure the mapping did not foresee (a getter that throws, say), for the log. */
      cause?: unknown;
    };

/**
 * Checks, in this order:
 * 1. the answer is a JSON object;
 * 2. its `transRef` is ASCII letters and digits only and equals the asked
 *    one, letters compared without case (banks print references in either
 *    case); its `sendingBank` is one to three ASCII digits naming the asked
 *    3-digit code ("4" = "004": some banks drop the leading zeros). Anything
 *    else in either (spaces, NBSP, a BOM, letters outside ASCII that
 *    toUpperCase folds into ASCII ones, like ſ → S or ı → I) is refused like
 *    another slip: a reference that needs cleaning up to match is not the
 *    reference asked about;
 * 3. everything mapSlip needs: an amount that is a finite number > 0 with at
 *    most two decimals, a date and time that name a real instant, a sender
 *    and a receiver, text where text is due.
 * An accepted slip names itself by the QR's values (see mapSlip), its
 * reference by the slip's identity, upper case (slip-qr.ts, slipReference):
 * the bank is asked with the QR's own spelling, and the spelling of a
 * re-cased QR is the same transfer. The bank's own spelling stays only in
 * rawData.
 */
export function acceptBankAnswer(asked: AskedSlip, data: unknown): BankAnswerVerdict {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return broken('transaction data is not an object');
  }
  const raw = data as RawSlipData;
  const answered = { transRef: textOf(raw.transRef), sendingBank: textOf(raw.sendingBank) };
  if (answered.transRef === '') return broken('transRef is missing');
  if (!sameReference(asked.transRef, answered.transRef) || !sameBank(asked.sendingBank, answered.sendingBank)) {
    return { ok: false, kind: 'upstream_mismatch', message: `${UPSTREAM_MESSAGES.upstream_error}: the answer is about a different slip`, answered };
  }
  try {
    return { ok: true, slip: mapSlip(raw, { sendingBank: asked.sendingBank, transRef: slipReference(asked.transRef) }) };
  } catch (err) {
    if (err instanceof SlipMappingError) return broken(err.message);
    return { ...broken('unreadable transaction data'), cause: err };
  }
}

function broken(detail: string): Extract<BankAnswerVerdict, { ok: false }> {
  return { ok: false, kind: 'upstream_error', message: `${UPSTREAM_MESSAGES.upstream_error}: ${detail}` };
}

/** As the bank wrote it, untrimmed: the checks below refuse what is not plain ASCII. */
function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

const REFERENCE = /^[A-Za-z0-9]+$/;
const BANK_CODE = /^[0-9]{1,3}$/;

/** Both sides are ASCII letters and digits, so upper-casing folds nothing else. */
function sameReference(asked: string, answered: string): boolean {
  return REFERENCE.test(asked) && REFERENCE.test(answered) && asked.toUpperCase() === answered.toUpperCase();
}

/** As 3-digit codes, the QR's form: a bank that answers "4" or 4 for "004" names the same bank. */
function sameBank(asked: string, answered: string): boolean {
  return BANK_CODE.test(asked) && BANK_CODE.test(answered) && asked.padStart(3, '0') === answered.padStart(3, '0');
}
