// Merges per-day success and failure counts into UsageRow, for every engine.
import type { ErrorKind } from '../domain/types.js';
import type { UsageRow } from '../domain/ports/store.js';

export function usageRows(
  successes: { account_id: string; day: string; n: number | string }[],
  failures: { account_id: string; day: string; kind: string; n: number | string }[],
): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  const at = (accountId: string, day: string): UsageRow => {
    const k = `${accountId}\u0000${day}`;
    let r = rows.get(k);
    if (!r) rows.set(k, (r = { accountId, day, successes: 0, failures: {} }));
    return r;
  };
  for (const s of successes) at(s.account_id, s.day).successes += Number(s.n);
  for (const f of failures) {
    const r = at(f.account_id, f.day);
    const kind = f.kind as ErrorKind;
    r.failures[kind] = (r.failures[kind] ?? 0) + Number(f.n);
  }
  return [...rows.values()].sort((a, b) => a.day.localeCompare(b.day) || a.accountId.localeCompare(b.accountId));
}
