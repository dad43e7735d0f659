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
