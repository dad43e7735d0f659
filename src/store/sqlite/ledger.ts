// Credit changes (top-ups, adjustments) and the totals reconciliation
// compares on SQLite.
import type { LedgerEntry } from '../../domain/types.js';
import { StoreError, type AuditTotals, type LedgerResult } from '../../domain/ports/store.js';
import { isSameLedgerChange } from '../../domain/accounts/money-rules.js';
import type { Lite } from './connection.js';
import * as row from './rows.js';

export async function applyLedgerEntry(lite: Lite, entry: LedgerEntry): Promise<LedgerResult> {
  return lite.db.transaction((): LedgerResult => {
    if (entry.idempotencyKey) {
      const existing = lite.stmt.ledgerByKey.get(entry.idempotencyKey) as row.LedgerRow | undefined;
      if (existing) {
        const prior = row.ledger(existing);
        if (!isSameLedgerChange(prior, entry)) {
          throw new StoreError('conflict', 'idempotency key was already used for a different change');
        }
        return { entry: prior, created: false, account: row.account(lite.stmt.account.get(prior.accountId) as row.AccountRow) };
      }
    }
    const a = lite.stmt.account.get(entry.accountId) as row.AccountRow | undefined;
    if (!a || a.deleted_at !== null) throw new StoreError('not_found', 'account not found');
    if (lite.stmt.addCredits.run(entry.delta, entry.accountId, entry.delta).changes !== 1) {
      throw new StoreError('insufficient', 'adjustment would make the balance negative');
    }
    lite.stmt.insertLedger.run(row.ledgerParams(entry));
    return { entry, created: true, account: row.account(lite.stmt.account.get(entry.accountId) as row.AccountRow) };
  }).immediate();
}

export async function listLedger(lite: Lite, accountId: string, limit: number): Promise<LedgerEntry[]> {
  const rows = lite.sql('SELECT * FROM credit_ledger WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(accountId, limit);
  return (rows as row.LedgerRow[]).map(row.ledger);
}

export async function auditTotals(lite: Lite, accountId: string): Promise<AuditTotals | null> {
  const totals = lite.db
    .prepare(
      `SELECT a.credits, a.usage, (SELECT count(*) FROM credit_holds WHERE account_id = a.id) AS held,
              (SELECT coalesce(sum(delta), 0) FROM credit_ledger WHERE account_id = a.id) AS ledgerTotal,
              (SELECT count(*) FROM verify_transactions WHERE account_id = a.id) AS verifyTransactions
       FROM accounts a WHERE a.id = ?`,
    )
    .get(accountId) as AuditTotals | undefined;
  return totals ?? null;
}
