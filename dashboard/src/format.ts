// Money in THB with two decimals, counts with separators, and every time in
// Asia/Bangkok whatever the operator's computer is set to. Thai dates are in
// the Buddhist era (พ.ศ.) with Thai month names; English ones Gregorian.
import { locale, t, type Locale } from './i18n/index.js';

const BANGKOK = 'Asia/Bangkok';
const DATE_LOCALES: Record<Locale, string> = { th: 'th-TH-u-ca-buddhist', en: 'en-GB' };

interface Formatters {
  count: Intl.NumberFormat;
  dateTime: Intl.DateTimeFormat;
  clock: Intl.DateTimeFormat;
  shortDay: Intl.DateTimeFormat;
  fullDay: Intl.DateTimeFormat;
}

const cache = new Map<Locale, Formatters>();

function formatters(): Formatters {
  const l = locale();
  let f = cache.get(l);
  if (!f) {
    const dates = DATE_LOCALES[l];
    f = {
      count: new Intl.NumberFormat(l === 'th' ? 'th-TH' : 'en-US', { maximumFractionDigits: 0 }),
      dateTime: new Intl.DateTimeFormat(dates, {
        timeZone: BANGKOK,
        year: 'numeric',
        month: 'short',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
        // "พ.ศ. 2569": the era is named, so no one reads the year as Gregorian.
        ...(l === 'th' ? { era: 'short' as const } : {}),
      }),
      clock: new Intl.DateTimeFormat(dates, { timeZone: BANGKOK, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }),
      // Days are calendar days already (YYYY-MM-DD in Bangkok): formatted as UTC so they never shift.
      shortDay: new Intl.DateTimeFormat(dates, { timeZone: 'UTC', day: 'numeric', month: 'short' }),
      fullDay: new Intl.DateTimeFormat(dates, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }),
    };
    cache.set(l, f);
  }
  return f;
}

// ฿1,234.50 in both languages: the same currency format Thai banks print.
const thb = new Intl.NumberFormat('th-TH', { style: 'currency', currency: 'THB', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const dayParts = new Intl.DateTimeFormat('en-CA', { timeZone: BANGKOK, year: 'numeric', month: '2-digit', day: '2-digit' });

export const formatThb = (amount: number): string => thb.format(amount);
export const formatCount = (n: number): string => formatters().count.format(n);
export const formatTime = (iso: string): string => formatters().dateTime.format(new Date(iso));
/** HH:MM:SS now, in Bangkok. */
export const formatClock = (at: Date): string => formatters().clock.format(at);
export const formatMs = (ms: number): string => t().format.ms(formatCount(ms));

/** "1 credit" / "1,500 credits" / "1,500 เครดิต". */
export const formatCredits = (n: number): string => t().format.credits(formatCount(n), n);

/** YYYY-MM-DD of an instant in Bangkok. */
export function bangkokDay(at: Date): string {
  return dayParts.format(at);
}

/** "12 Jan" / "12 ม.ค." for a YYYY-MM-DD day. */
export function formatDay(day: string): string {
  return formatters().shortDay.format(new Date(`${day}T00:00:00Z`));
}

/** "12 Jan 2026" / "12 ม.ค. 2569" for a YYYY-MM-DD day. */
export function formatFullDay(day: string): string {
  return formatters().fullDay.format(new Date(`${day}T00:00:00Z`));
}

/** The YYYY-MM-DD days from `first` to `last`, inclusive. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/** Midnight starting a Bangkok day, as the API's DateTime input. */
export function bangkokMidnight(day: string): string {
  return `${day}T00:00:00+07:00`;
}

/** A datetime-local value ("2025-01-31T14:05"), read as Bangkok time, as DateTime input; null when empty. */
export function bangkokInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  return `${value.length === 16 ? `${value}:00` : value}+07:00`;
}

/** Years are written in the Buddhist era in Thai (2569 = 2026). */
const BUDDHIST_ERA_OFFSET = 543;
const yearOffset = () => (locale() === 'th' ? BUDDHIST_ERA_OFFSET : 0);
const DATE_INPUT = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A date filter as the operator types it in the chosen language
 * ("25/11/2569 14:05" in Thai, "25/11/2026 14:05" in English), from the
 * canonical "2026-11-25T14:05:00" the address keeps (Bangkok time).
 * The browser's own date picker would show its locale's mm/dd/yyyy instead.
 */
export function formatDateInput(canonical: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(canonical);
  if (!m) return canonical;
  const seconds = m[6] && m[6] !== '00' ? `:${m[6]}` : '';
  return `${m[3]}/${m[2]}/${Number(m[1]) + yearOffset()} ${m[4]}:${m[5]}${seconds}`;
}

/** The canonical "YYYY-MM-DDTHH:MM:SS" of what was typed; '' for nothing; null when it is no date. */
export function parseDateInput(typed: string): string | null {
  const text = typed.trim();
  if (text === '') return '';
  const m = DATE_INPUT.exec(text);
  if (!m) return null;
  const [day, month, year, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as number[];
  const gregorian = year! - yearOffset();
  const at = new Date(Date.UTC(gregorian, month! - 1, day!, hour!, minute!, second!));
  // 31/02 or 25:00 roll over in Date.UTC: refuse instead of guessing.
  if (gregorian < 1970 || at.getUTCDate() !== day || at.getUTCMonth() !== month! - 1 || hour! > 23) return null;
  return at.toISOString().slice(0, 19);
}

/** The placeholder's example: now, in Bangkok, in the chosen language. */
export function dateInputExample(now = new Date()): string {
  return formatDateInput(new Date(now.getTime() + 7 * 3_600_000).toISOString().slice(0, 16));
}
