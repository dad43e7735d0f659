// What `backup` and `restore` report about a database file: the doctor's
// reconciliation run on the copy, summed up.
import { reconcileAll, type ReconcileOptions } from '../domain/accounts/reconcile.js';
import { openStore } from '../store/open.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';

export interface BooksSummary {
  accounts: number;
  verifications: number;
  /** Sum of every ledger delta: all credits ever granted. */
  ledgerTotal: number;
  credits: number;
  openHolds: number;
  discrepancies: { accountId: string; problems: string[] }[];
}

export interface SummaryOptions extends ReconcileOptions {
  /** Open the file read-only: no migration, no WAL switch (a backup's copy keeps its schema version). */
  readonly?: boolean;
}

export async function summarizeSqliteFile(path: string, { readonly = false, ...options }: SummaryOptions = {}): Promise<BooksSummary> {
  const store = readonly ? new SqliteStore(path, { readonly: true }) : await openStore(`sqlite:${path}`);
  try {
    const results = await reconcileAll(store, options);
    const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + pick(r), 0);
    return {
      accounts: results.length,
      verifications: sum((r) => r.verifyTransactions),
      ledgerTotal: sum((r) => r.ledgerTotal),
      credits: sum((r) => r.credits),
      openHolds: sum((r) => r.held),
      discrepancies: results.filter((r) => r.problems.length > 0).map((r) => ({ accountId: r.accountId, problems: r.problems })),
    };
  } finally {
    await store.close();
  }
}

export function describeBooks(s: BooksSummary): string {
  return `${s.accounts} accounts, ${s.verifications} verifications, ledger sum ${s.ledgerTotal} credits (${s.credits} spendable, ${s.openHolds} held by open holds)`;
}
