// The receiver rules, in one place: what a slip says about who was paid, and
// when that agrees with what a merchant expects. The per-request checks
// (receiverAccount, receiverName) and the registered receivers
// (domain/receiver-policy.ts) both decide with these.
import type { VerifiedSlip } from '../types.js';
import { nameMatches, namePrintedAs, showsName } from './names.js';

export { nameMatches, namePrintedAs };

/** The receiver's masked values on a slip, with where each came from. */
export function slipReceiverAccounts(slip: VerifiedSlip): { kind: 'bank' | 'promptpay'; value: string }[] {
  const out: { kind: 'bank' | 'promptpay'; value: string }[] = [];
  if (slip.receiverBankAccountNumber !== '') out.push({ kind: 'bank', value: slip.receiverBankAccountNumber });
  if (slip.receiverPromptpay !== '') out.push({ kind: 'promptpay', value: slip.receiverPromptpay });
  return out;
}

/** The receiver's names on a slip (Thai, English), blanks left out. */
export function slipReceiverNames(slip: VerifiedSlip): string[] {
  return [slip.receiverName, slip.receiverNameEN].filter((v) => v.trim() !== '');
}

/** The names a slip shows of its receiver: those with letters left once titles, legal forms and masks are gone. */
export function shownReceiverNames(slip: VerifiedSlip): string[] {
  return slipReceiverNames(slip).filter(showsName);
}

const THAI_LETTER = /[\u0E00-\u0E7F]/;

/** A Thai name and a Latin one cannot be compared: neither says anything about the other. */
export function sameScript(a: string, b: string): boolean {
  return THAI_LETTER.test(a) === THAI_LETTER.test(b);
}

/** True when the value shows at least one digit: a wholly masked value tells nothing. */
export function hasVisibleDigits(masked: string): boolean {
  return /\d/.test(masked);
}

const MASK_CHAR = /^[xX*•#]$/;
const DIGIT = /^[0-9]$/;

/**
 * A masked account/proxy from the bank (`xxx-x-x3109-x`) against what the
 * merchant expects (a full number `123-3-13109-0` or a run of it `1233109`).
 * Separators are ignored; the shorter sequence must sit somewhere inside the
 * longer one so that every visible digit it overlaps agrees, and at least
 * min(expected digits, visible digits) digits are actually compared — so a
 * guess never matches only because it landed on the masked part.
 */
export function accountMatches(masked: string, expected: string): boolean {
  const m = [...masked].filter((c) => DIGIT.test(c) || MASK_CHAR.test(c));
  const e = [...expected].filter((c) => DIGIT.test(c));
  const visible = m.filter((c) => DIGIT.test(c)).length;
  if (visible === 0 || e.length === 0) return false;
  const needed = Math.min(e.length, visible);
  const [short, long, shortIsExpected] = e.length <= m.length ? [e, m, true] : [m, e, false];
  for (let offset = 0; offset + short.length <= long.length; offset++) {
    let compared = 0;
    let ok = true;
    for (let i = 0; i < short.length && ok; i++) {
      const mc = shortIsExpected ? long[offset + i]! : short[i]!;
      const ec = shortIsExpected ? short[i]! : long[offset + i]!;
      if (!DIGIT.test(mc)) continue;
      compared++;
      ok = mc === ec;
    }
    if (ok && compared >= needed) return true;
  }
  return false;
}

