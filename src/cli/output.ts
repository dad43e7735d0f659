// How the operator commands print for a person: aligned columns, Bangkok
// times (as the dashboard shows them), counted nouns. `--json` is for scripts.

/** Columns, left-aligned, with a header and a rule; Thai tone marks and vowels above or below take no width. */
export function printTable(rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const cells = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => width(line[i]!))));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v + ' '.repeat(widths[i]! - width(v)))).join('  ').trimEnd();
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const values of cells.slice(1)) console.log(line(values));
}

function width(text: string): number {
  return [...text.replace(/\p{M}/gu, '')].length;
}

/** `2026-11-25 14:05:03` in Bangkok time (UTC+7, no daylight saving); empty for none. */
export function bangkokTime(at: Date | null | undefined): string {
  if (!at) return '';
  return new Date(at.getTime() + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** `1 account`, `2 accounts`. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
