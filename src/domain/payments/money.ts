// Amounts of payment requests: baht with at most two decimals on the wire
// (250, 250.5 or "250.00"), whole satang everywhere inside, so no sum or
// comparison ever meets a binary fraction.

/** The most a PromptPay QR's amount (tag 54, at most 13 characters) can carry: 9,999,999,999.99 baht. */
export const MAX_AMOUNT_SATANG = 999_999_999_999;

const BAHT = /^(0|[1-9]\d*)(\.\d{1,2})?$/;

/** Satang from a wire amount; null when it is not a positive amount of at most two decimals within the maximum. */
export function satangOf(value: number | string): number | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m = BAHT.exec(text);
  if (!m) return null;
  const satang = Number(m[1]) * 100 + Number((m[2] ?? '.').slice(1).padEnd(2, '0'));
  return satang > 0 && satang <= MAX_AMOUNT_SATANG ? satang : null;
}

/** Baht as a JSON number (250.37), the unit of every amount slipgate answers with. */
export const bahtOf = (satang: number): number => Math.round(satang) / 100;

/** A slip's amount (baht, a JSON number from the bank) in satang. */
export const slipSatang = (amount: number): number => Math.round(amount * 100);
