// "Was it paid to my account?": the receiver's bank account or PromptPay
// number, against the bank's masked values.
import { z } from 'zod';
import { defineCheck } from './check.js';

const MAX_TEXT = 200;
const MIN_ACCOUNT_DIGITS = 4;
const FORMAT = 'checks.receiverAccount must be a string of digits (dashes and spaces allowed)';

export const receiverAccountCheck = defineCheck({
  name: 'receiverAccount',
  request: z
    .string({ error: FORMAT })
    .max(MAX_TEXT, FORMAT)
    .regex(/^[\d\s-]*$/, FORMAT)
    .regex(/^[\s-]*(\d[\s-]*){4,}$/, `checks.receiverAccount needs at least ${MIN_ACCOUNT_DIGITS} digits`)
    .meta({
      description:
        "The receiver's bank account or PromptPay number, whole or a run of at least 4 of its digits. Matched against the bank's masked values: visible digits must agree in position (`xxx-x-x3109-x` matches `1233109`).",
    }),
  keep: (receiverAccount: string) => ({ ok: true, request: { receiverAccount } }),
  evaluate: (req, slip) => {
    if (req.receiverAccount === undefined) return undefined;
    const candidates = [slip.receiverBankAccountNumber, slip.receiverPromptpay].filter((v) => v !== '');
    const hit = candidates.find((masked) => accountMatches(masked, req.receiverAccount!));
    return { passed: hit !== undefined, expected: req.receiverAccount, actual: hit !== undefined ? [hit] : candidates };
  },
});

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

