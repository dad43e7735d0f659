// Opt-in merchant checks (issue 9): "was this slip already used?" and "is it
// the amount, receiver and age I expect?". Pure functions over the verified
// slip; the duplicate history is looked up by the caller and passed in.
// Checks never change verification, charging or `status`: they only report.
import type { VerifiedSlip } from './types.js';

/** What a caller may ask for in the request's `checks` object. */
export interface CheckRequest {
  duplicate?: boolean;
  /** Expected amount in satang (validated to at most 2 decimals of baht). */
  amountSatang?: number;
  receiverAccount?: string;
  receiverName?: string;
  maxAgeMinutes?: number;
}

export interface DuplicateResult {
  passed: boolean;
  seen: boolean;
  /** Other successful verifications of this slip by the same account. */
  count: number;
  firstVerifiedAt: string | null;
}

/** The history lookup failed after the verification was charged. */
export interface DuplicateUnknown {
  passed: false;
  error: string;
}

export interface AmountResult {
  passed: boolean;
  expected: number;
  actual: number;
}

export interface ReceiverAccountResult {
  passed: boolean;
  expected: string;
  /** The masked value that matched, or every value compared when none did. */
  actual: string[];
}

export interface ReceiverNameResult {
  passed: boolean;
  expected: string;
  actual: string[];
}

export interface MaxAgeResult {
  passed: boolean;
  maxAgeMinutes: number;
  /** Whole minutes since the transaction (negative if the slip is from the future). */
  ageMinutes: number;
}

export interface CheckResults {
  duplicate?: DuplicateResult | DuplicateUnknown;
  amount?: AmountResult;
  receiverAccount?: ReceiverAccountResult;
  receiverName?: ReceiverNameResult;
  maxAgeMinutes?: MaxAgeResult;
}

/** Earlier verifications of the same slip by the same account. */
export type DuplicateHistory = { count: number; firstVerifiedAt: Date | null } | { error: string };

export const CHECK_NAMES = ['duplicate', 'amount', 'receiverAccount', 'receiverName', 'maxAgeMinutes'] as const;

export function evaluateChecks(req: CheckRequest, slip: VerifiedSlip, ctx: { now: Date; history?: DuplicateHistory }): CheckResults {
  const out: CheckResults = {};
  if (req.duplicate) out.duplicate = duplicateResult(ctx.history ?? { error: 'duplicate history was not looked up' });
  if (req.amountSatang !== undefined) {
    const actualSatang = Math.round(slip.amount * 100);
    out.amount = { passed: actualSatang === req.amountSatang, expected: req.amountSatang / 100, actual: slip.amount };
  }
  if (req.receiverAccount !== undefined) {
    const candidates = [slip.receiverBankAccountNumber, slip.receiverPromptpay].filter((v) => v !== '');
    const hit = candidates.find((masked) => accountMatches(masked, req.receiverAccount!));
    out.receiverAccount = { passed: hit !== undefined, expected: req.receiverAccount, actual: hit !== undefined ? [hit] : candidates };
  }
  if (req.receiverName !== undefined) {
    const candidates = [slip.receiverName, slip.receiverNameEN].filter((v) => v.trim() !== '');
    const hit = candidates.find((name) => nameMatches(name, req.receiverName!));
    out.receiverName = { passed: hit !== undefined, expected: req.receiverName, actual: hit !== undefined ? [hit] : candidates };
  }
  if (req.maxAgeMinutes !== undefined) {
    const ageMs = ctx.now.getTime() - slip.timestamp * 1000;
    out.maxAgeMinutes = { passed: ageMs <= req.maxAgeMinutes * 60_000, maxAgeMinutes: req.maxAgeMinutes, ageMinutes: Math.floor(ageMs / 60_000) };
  }
  return out;
}

function duplicateResult(history: DuplicateHistory): DuplicateResult | DuplicateUnknown {
  // Fail closed: a merchant who asked "already used?" must not read "no" when we do not know.
  if ('error' in history) return { passed: false, error: history.error };
  return {
    passed: history.count === 0,
    seen: history.count > 0,
    count: history.count,
    firstVerifiedAt: history.firstVerifiedAt ? history.firstVerifiedAt.toISOString() : null,
  };
}

// ---------------------------------------------------------------- accounts

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

// ------------------------------------------------------------------- names

// Longest first, so นางสาว is not read as นาง + สาว.
const THAI_TITLES = ['นางสาว', 'นาย', 'นาง', 'คุณ', 'เด็กชาย', 'เด็กหญิง'];
const DOTTED_TITLES = ['น.ส.', 'ด.ช.', 'ด.ญ.', 'ดร.', 'mrs.', 'mr.', 'ms.', 'dr.', 'miss.'];
const EN_TITLES = ['mrs', 'mr', 'ms', 'miss', 'dr', 'khun'];
/** Legal-form words that banks add or drop freely; removed wherever they stand. */
const COMPANY_WORDS = new Set([
  'บริษัท', 'บจก', 'บมจ', 'หจก', 'ห้างหุ้นส่วนจำกัด', 'ห้างหุ้นส่วน', 'จำกัด', 'มหาชน',
  'co', 'ltd', 'company', 'limited', 'inc', 'corp', 'corporation', 'pcl', 'plc', 'public', 'llc',
]);
const THAI = /[\u0E00-\u0E7F]/;

/** Name tokens without titles, legal forms, punctuation, case or extra spaces. */
export function nameTokens(name: string): string[] {
  let s = name.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
  s = stripTitle(s);
  return s
    .replace(/[.,()\[\]'"&/\\_-]+/g, ' ')
    .split(' ')
    .filter((t) => t !== '' && !COMPANY_WORDS.has(t));
}

function stripTitle(s: string): string {
  for (const t of DOTTED_TITLES) if (s.startsWith(t)) return s.slice(t.length).trim();
  for (const t of [...THAI_TITLES, ...EN_TITLES]) if (s === t || s.startsWith(`${t} `)) return s.slice(t.length).trim();
  return s;
}

/** The same tokens with a Thai title glued to the name (`นายสมชาย`) taken off. */
function gluedTitleVariant(tokens: string[]): string[] | null {
  const first = tokens[0];
  if (!first) return null;
  const title = THAI_TITLES.find((t) => first.startsWith(t) && first.length > t.length);
  return title ? [first.slice(title.length), ...tokens.slice(1)] : null;
}

/**
 * The bank's (masked, often truncated) name against the merchant's. Titles,
 * legal forms, case and spacing do not matter. Banks cut the surname
 * (`นาย สมชาย ใ`), so the slip's name may end early; the merchant may give
 * only the first name(s). Either way whole leading tokens must agree.
 */
export function nameMatches(actual: string, expected: string): boolean {
  const a = unmaskLast(nameTokens(actual));
  const eBase = nameTokens(expected);
  // A glued Thai title is ambiguous (นางนวล is a name), so both readings count.
  const aVariants = [a, gluedTitleVariant(a)].filter((v): v is string[] => v !== null && v.length > 0);
  const eVariants = [eBase, gluedTitleVariant(eBase)].filter((v): v is string[] => v !== null && v.length > 0);
  return aVariants.some((av) => eVariants.some((ev) => tokensMatch(av, ev)));
}

/** Drops mask characters the bank put at the end (`ใxxx`, `J***`). */
function unmaskLast(tokens: string[]): string[] {
  const last = tokens.at(-1);
  if (last === undefined) return tokens;
  const cleaned = THAI.test(last) ? last.replace(/[x*•]+$/i, '') : last.replace(/[*•]+$/, '');
  return cleaned === '' ? tokens.slice(0, -1) : [...tokens.slice(0, -1), cleaned];
}

function tokensMatch(actual: string[], expected: string[]): boolean {
  const a = actual.join('');
  const e = expected.join('');
  if (a === '' || e === '') return false;
  if (a === e) return true;
  // Slip shows first name + a cut surname: the slip's text starts the merchant's.
  if (e.startsWith(a) && (actual.length >= 2 || boundaries(expected).has(a.length))) return true;
  // Merchant gave the leading name(s) only: must end where a slip token ends.
  return a.startsWith(e) && boundaries(actual).has(e.length);
}

/** Character offsets where tokens end in the joined (space-free) name. */
function boundaries(tokens: string[]): Set<number> {
  const out = new Set<number>();
  let at = 0;
  for (const t of tokens) out.add((at += t.length));
  return out;
}
