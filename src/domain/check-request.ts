// Validation of the optional `checks` object of a verify request.
// Anything unexpected is a bad request that names the problem, before any credit is
// held, so a typo never costs a verification without the check it asked for.
import { CHECK_NAMES, nameTokens, type CheckRequest } from './checks.js';

export type CheckRequestResult = { ok: true; checks: CheckRequest } | { ok: false; message: string };

const MAX_TEXT = 200;
const MIN_ACCOUNT_DIGITS = 4;
const MAX_AGE_MINUTES = 366 * 24 * 60;
const AMOUNT_TEXT = /^\d{1,10}(\.\d{1,2})?$/;

export function parseCheckRequest(value: unknown): CheckRequestResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'checks must be a JSON object, e.g. {"duplicate": true, "amount": 250.00}' };
  }
  const input = value as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(CHECK_NAMES as readonly string[]).includes(k));
  if (unknown.length > 0) {
    return { ok: false, message: `unknown check ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known checks: ${CHECK_NAMES.join(', ')}` };
  }
  const checks: CheckRequest = {};
  const fail = (message: string): CheckRequestResult => ({ ok: false, message });

  if (input.duplicate !== undefined) {
    if (typeof input.duplicate !== 'boolean') return fail('checks.duplicate must be true or false');
    checks.duplicate = input.duplicate;
  }
  if (input.amount !== undefined) {
    const satang = amountSatang(input.amount);
    if (satang === null) return fail('checks.amount must be a positive amount in baht with at most 2 decimals, e.g. 250 or 250.50');
    checks.amountSatang = satang;
  }
  if (input.receiverAccount !== undefined) {
    const v = input.receiverAccount;
    if (typeof v !== 'string' || v.length > MAX_TEXT || !/^[\d\s-]*$/.test(v)) return fail('checks.receiverAccount must be a string of digits (dashes and spaces allowed)');
    if (v.replace(/\D/g, '').length < MIN_ACCOUNT_DIGITS) return fail(`checks.receiverAccount needs at least ${MIN_ACCOUNT_DIGITS} digits`);
    checks.receiverAccount = v;
  }
  if (input.receiverName !== undefined) {
    const v = input.receiverName;
    if (typeof v !== 'string' || v.length > MAX_TEXT) return fail(`checks.receiverName must be a string of at most ${MAX_TEXT} characters`);
    if (nameTokens(v).length === 0) return fail('checks.receiverName must contain a name, not only a title or company form');
    checks.receiverName = v;
  }
  if (input.maxAgeMinutes !== undefined) {
    const v = input.maxAgeMinutes;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > MAX_AGE_MINUTES) {
      return fail(`checks.maxAgeMinutes must be a number of minutes above 0 and at most ${MAX_AGE_MINUTES}`);
    }
    checks.maxAgeMinutes = v;
  }
  return { ok: true, checks };
}

/** Baht as a JSON number or decimal text → integer satang; null if not exact. */
function amountSatang(v: unknown): number | null {
  let satang: number;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v <= 0) return null;
    satang = Math.round(v * 100);
    // 250.005 is not an amount a slip can carry; refuse instead of rounding.
    if (Math.abs(v * 100 - satang) > 1e-6) return null;
  } else if (typeof v === 'string' && AMOUNT_TEXT.test(v.trim())) {
    const [baht, frac = ''] = v.trim().split('.');
    satang = Number(baht) * 100 + Number(frac.padEnd(2, '0'));
    if (satang <= 0) return null;
  } else {
    return null;
  }
  return Number.isSafeInteger(satang) ? satang : null;
}
