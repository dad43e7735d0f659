// "Is it the amount I expect?", compared in whole satang.
import { z } from 'zod';
import { defineCheck } from './check.js';

const MESSAGE = 'checks.amount must be a positive amount in baht with at most 2 decimals, e.g. 250 or 250.50';
const AMOUNT_TEXT = /^\s*\d{1,10}(\.\d{1,2})?\s*$/;

export const amountCheck = defineCheck({
  name: 'amount',
  request: z
    .union([z.number({ error: MESSAGE }).gt(0, MESSAGE).max(9_999_999_999.99, MESSAGE).multipleOf(0.01, MESSAGE), z.string({ error: MESSAGE }).regex(AMOUNT_TEXT, MESSAGE)], {
      error: MESSAGE,
    })
    .meta({ description: 'Expected amount in baht, at most 2 decimals; compared in whole satang.' }),
  keep: (amount: number | string) => {
    const satang = amountSatang(amount);
    return satang === null ? { ok: false, message: MESSAGE } : { ok: true, request: { amountSatang: satang } };
  },
  evaluate: (req, slip) => {
    if (req.amountSatang === undefined) return undefined;
    const actualSatang = Math.round(slip.amount * 100);
    return { passed: actualSatang === req.amountSatang, expected: req.amountSatang / 100, actual: slip.amount };
  },
});

/** Baht as a JSON number or decimal text → integer satang; null if not exact. */
function amountSatang(v: number | string): number | null {
  let satang: number;
  if (typeof v === 'number') {
    satang = Math.round(v * 100);
    // 250.005 is not an amount a slip can carry; refuse instead of rounding.
    if (Math.abs(v * 100 - satang) > 1e-6) return null;
  } else {
    const [baht, frac = ''] = v.trim().split('.');
    satang = Number(baht) * 100 + Number(frac.padEnd(2, '0'));
  }
  return satang > 0 && Number.isSafeInteger(satang) ? satang : null;
}
