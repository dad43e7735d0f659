// Money in THB with two decimals, counts with separators, and every time in
// Asia/Bangkok whatever the operator's computer is set to.
const BANGKOK = 'Asia/Bangkok';

const thb = new Intl.NumberFormat('th-TH', { style: 'currency', currency: 'THB', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dateTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: BANGKOK,
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const dayParts = new Intl.DateTimeFormat('en-CA', { timeZone: BANGKOK, year: 'numeric', month: '2-digit', day: '2-digit' });
const shortDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });

export const formatThb = (amount: number): string => thb.format(amount);
export const formatCount = (n: number): string => count.format(n);
export const formatTime = (iso: string): string => dateTime.format(new Date(iso));

/** "1 credit" / "1,500 credits". */
export const formatCredits = (n: number): string => `${formatCount(n)} ${Math.abs(n) === 1 ? 'credit' : 'credits'}`;

/** YYYY-MM-DD of an instant in Bangkok. */
export function bangkokDay(at: Date): string {
  return dayParts.format(at);
}

/** "12 Jan" for a YYYY-MM-DD day. */
export function formatDay(day: string): string {
  return shortDay.format(new Date(`${day}T00:00:00Z`));
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
