// Names as banks print them: titles, legal forms, masks and cut surnames.

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

/** A cut shorter than the registered name's first word must show at least this many characters of it. */
const MIN_CUT_INSIDE_FIRST_WORD = 8;

/**
 * Stricter than nameMatches, for registered receivers: the slip's name is
 * the registered one, whole or cut short by the bank (a fixed width, a cut
 * surname `MR. SOMCHAI J`, a cut legal form `CO., LT`), never longer and
 * never another first name. Titles, legal forms, case, spacing and trailing
 * masks do not matter. A cut that ends inside the registered first word
 * must still show MIN_CUT_INSIDE_FIRST_WORD characters of it: `ร้าน กา`
 * is not `ร้านกาแฟ ดีดี`, while a long shop name cut at a bank's width is.
 */
export function namePrintedAs(actual: string, registered: string): boolean {
  const a = unmaskLast(nameTokens(actual));
  const aVariants = [a, gluedTitleVariant(a)].filter((v): v is string[] => v !== null && v.length > 0);
  const r = nameTokens(registered);
  const rVariants = [r, gluedTitleVariant(r)].filter((v): v is string[] => v !== null && v.length > 0);
  // A cut legal form only after the whole name: `SOMCHAI LI` is not SOMCHAI JAIDEE's `LIMITED`.
  const wholeThenCutForm = aVariants.map(withoutCutLegalForm).filter((v): v is string[] => v !== null);
  return aVariants.some((av) => rVariants.some((rv) => cutOf(av, rv))) || wholeThenCutForm.some((av) => rVariants.some((rv) => av.join('') === rv.join('')));
}

/** True when the name shows letters at all (a wholly masked or title-only name shows none). */
export function showsName(name: string): boolean {
  return unmaskLast(nameTokens(name)).length > 0;
}

/** The tokens without a last one that is a legal form the bank cut (`LT` of LTD, `จำ` of จำกัด). */
function withoutCutLegalForm(tokens: string[]): string[] | null {
  const last = tokens.at(-1);
  if (tokens.length < 2 || last === undefined) return null;
  return [...COMPANY_WORDS].some((w) => w.length > last.length && w.startsWith(last)) ? tokens.slice(0, -1) : null;
}

function cutOf(actual: string[], registered: string[]): boolean {
  const a = actual.join('');
  const r = registered.join('');
  if (a === '' || r === '') return false;
  if (a === r) return true;
  if (!r.startsWith(a)) return false;
  return a.length >= registered[0]!.length || a.length >= MIN_CUT_INSIDE_FIRST_WORD;
}
