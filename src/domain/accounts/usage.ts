// Usage for charts: per account and Bangkok day. Only a successful
// verification costs a credit (one each); failures are free.
import type { UsageRow } from '../ports/store.js';
import type { ErrorKind } from '../types.js';

const CREDITS_PER_SUCCESS = 1;

export interface UsageDay {
  accountId: string;
  /** YYYY-MM-DD in Asia/Bangkok. */
  day: string;
  successes: number;
  failures: number;
  failuresByKind: { kind: ErrorKind; count: number }[];
  creditsSpent: number;
}

/** Oldest day first (what a chart wants), then by account. */
export function usageDays(rows: UsageRow[]): UsageDay[] {
  return rows
    .map((r) => {
      const failuresByKind = (Object.entries(r.failures) as [ErrorKind, number][])
        .filter(([, count]) => count > 0)
        .map(([kind, count]) => ({ kind, count }))
        .sort((a, b) => a.kind.localeCompare(b.kind));
      return {
        accountId: r.accountId,
        day: r.day,
        successes: r.successes,
        failures: failuresByKind.reduce((sum, f) => sum + f.count, 0),
        failuresByKind,
        creditsSpent: r.successes * CREDITS_PER_SUCCESS,
      };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.accountId.localeCompare(b.accountId));
}
