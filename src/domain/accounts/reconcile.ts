// Reconciliation: every credit is either still spendable, held by an
// in-flight verification, or spent on a recorded success. For each account:
//   credits + held + usage = sum of ledger deltas
//   usage = number of VerifyTransaction records
//   credits >= 0
//   no hold older than the stale age (no verification can still be behind it)
import type { Store } from '../ports/store.js';

export interface AccountReconciliation {
  accountId: string;
  credits: number;
  held: number;
  usage: number;
  ledgerTotal: number;
  verifyTransactions: number;
  problems: string[];
}

export interface ReconcileOptions {
  /**
   * Holds taken before this instant outlived any verification (HOLD_STALE_MS):
   * their process died and no recovery has run since. Unset: not checked.
   */
  staleBefore?: Date;
}

export async function reconcileAccount(store: Store, accountId: string, options: ReconcileOptions = {}): Promise<AccountReconciliation> {
  // One read: balance and records from the same instant (on the SQL engines).
  const totals = await store.auditTotals(accountId);
  if (!totals) throw new Error(`account ${accountId} not found`);
  const { credits, held, usage } = totals;
  const problems: string[] = [];
  if (credits < 0) problems.push(`negative balance ${credits}`);
  if (credits + held + usage !== totals.ledgerTotal) {
    problems.push(`credits ${credits} + held ${held} + usage ${usage} = ${credits + held + usage}, but the ledger adds up to ${totals.ledgerTotal}`);
  }
  if (usage !== totals.verifyTransactions) {
    problems.push(`usage ${usage} but ${totals.verifyTransactions} VerifyTransaction records`);
  }
  const { staleBefore } = options;
  if (staleBefore && held > 0) {
    for (const h of await store.listHolds(accountId)) {
      if (h.createdAt < staleBefore) {
        problems.push(`stale hold ${h.id} from ${h.createdAt.toISOString()}: no verification is in flight for it (is any slipgate running to recover it?)`);
      }
    }
  }
  return { accountId, ...totals, problems };
}

/** Reconciles every account (deleted ones too), page by page. */
export async function reconcileAll(store: Store, options: ReconcileOptions = {}): Promise<AccountReconciliation[]> {
  const results: AccountReconciliation[] = [];
  let after: string | null = null;
  do {
    const page = await store.listAccounts({ limit: 200, after, includeDeleted: true });
    for (const a of page.items) results.push(await reconcileAccount(store, a.id, options));
    after = page.next;
  } while (after);
  return results;
}
