// What slipgate accepts from the verification network. A bank answer is an
// outside value: before it can charge a credit it must be about the very slip
// that was asked for, and complete enough to answer the caller truthfully.
// A misrouted or caching proxy, a confused load balancer or a faulty bank can
// answer "0000" with another transfer's data; accepting that would let a fake
// slip "verify" with someone else's real payment.
import { mapSlip, SlipMappingError } from './mapping.js';
import type { RawSlipData, VerifiedSlip } from './types.js';
import { UPSTREAM_MESSAGES } from './errors.js';

/** The slip the QR names (what was asked). */
export interface AskedSlip {
  sendingBank: string;
  transRef: string;
}

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
 * 2. its `transRef` equals the asked one (trimmed; letters compared without
 *    case, since banks print references in either case) and its
 *    `sendingBank` equals the asked bank (trimmed; numeric codes compared as
 *    numbers, "004" = "4");
 * 3. everything mapSlip needs: an amount that is a finite number > 0 with at
 *    most two decimals, a date and time that name a real instant, a sender
 *    and a receiver, text where text is due.
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
    return { ok: true, slip: mapSlip(raw) };
  } catch (err) {
    if (err instanceof SlipMappingError) return broken(err.message);
    return { ...broken('unreadable transaction data'), cause: err };
  }
}

function broken(detail: string): Extract<BankAnswerVerdict, { ok: false }> {
  return { ok: false, kind: 'upstream_error', message: `${UPSTREAM_MESSAGES.upstream_error}: ${detail}` };
}

function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
}

function sameReference(a: string, b: string): boolean {
  return a.trim().toUpperCase() === b.toUpperCase();
}

const DIGITS = /^\d+$/;

function sameBank(a: string, b: string): boolean {
  const x = a.trim();
  if (DIGITS.test(x) && DIGITS.test(b)) return Number(x) === Number(b);
  return x.toUpperCase() === b.toUpperCase();
}
