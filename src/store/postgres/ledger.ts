// Credit changes (top-ups, adjustments) and the totals reconciliation
// compares on PostgreSQL.
import type { QueryResult } from 'pg';
import type { Account, LedgerEntry } from '../../domain/types.js';
import { StoreError, type AuditTotals, type LedgerResult } from '../../domain/ports/store.js';
import { isSameLedgerChange } from '../../domain/accounts/money-rules.js';
import { ACCOUNT_SELECT, type PgDb, type Run } from './db.js';
import * as row from './rows.js';
import { prepared } from './sql.js';

export async function applyLedgerEntry(db: PgDb, entry: LedgerEntry): Promise<LedgerResult> {
  return db.tx(async (run): Promise<LedgerResult> => {
    // The account's row lock first, in the queue like every other writer of
    // the row. Without it the entry's foreign-key check below takes a share
    // lock on the row version it finds and keeps it while this change waits
    // at its UPDATE; a hold or settle that meanwhile locked the newer version
    // must then queue for the old one to update it, behind a statement that
    // waits for it: a deadlock (the randomized race test met it). No row (a
    // missing account) locks nothing, and the INSERT below says not found.
    await run('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [entry.accountId]);
    // The entry is written first: it claims the idempotency key. A
    // concurrent claim of the same key waits for ours to commit (then does
    // nothing and replays ours) or to roll back (then takes the key). A
    // NULL key never conflicts.
    let claimed: QueryResult;
    try {
      claimed = await run(
        `INSERT INTO credit_ledger (${row.LEDGER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (idempotency_key) DO NOTHING`,
        row.ledgerParams(entry),
      );
    } catch (err) {
      if ((err as { code?: string }).code === '23503') throw new StoreError('not_found', 'account not found', { cause: err });
      throw err;
    }
    if (claimed.rowCount === 0) return replay(db, run, entry);

    const credited = await run('UPDATE accounts SET credits = credits + $1 WHERE id = $2 AND deleted_at IS NULL AND credits + $1 >= 0', [entry.delta, entry.accountId]);
    if (credited.rowCount !== 1) {
      // Throwing rolls the entry back, which frees the key again.
      const { rows } = await run<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM accounts WHERE id = $1', [entry.accountId]);
      if (!rows[0] || rows[0].deleted) throw new StoreError('not_found', 'account not found');
      throw new StoreError('insufficient', 'adjustment would make the balance negative');
    }
    return { entry, created: true, account: await accountIn(run, entry.accountId) };
  });
}

/** The key was used before: the same change returns the prior entry. */
async function replay(db: PgDb, run: Run, entry: LedgerEntry): Promise<LedgerResult> {
  const { rows } = await run<row.LedgerRow>('SELECT * FROM credit_ledger WHERE idempotency_key = $1', [entry.idempotencyKey]);
  const prior = row.ledger(rows[0]!);
  if (!isSameLedgerChange(prior, entry)) {
    throw new StoreError('conflict', 'idempotency key was already used for a different change');
  }
  return { entry: prior, created: false, account: await accountIn(run, prior.accountId) };
}

async function accountIn(run: Run, id: string): Promise<Account> {
  const { rows } = await run<row.AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = $1`, [id]);
  return row.account(rows[0]!);
}

export async function listLedger(db: PgDb, accountId: string, limit: number): Promise<LedgerEntry[]> {
  const { rows } = await db.run<row.LedgerRow>(
    prepared('SELECT * FROM credit_ledger WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2'),
    [accountId, limit],
  );
  return rows.map(row.ledger);
}

export async function auditTotals(db: PgDb, accountId: string): Promise<AuditTotals | null> {
  const { rows } = await db.run<{ credits: number; usage: number; held: number; ledger_total: string; vts: number }>(
    `SELECT a.credits, a.usage, (SELECT count(*)::int FROM credit_holds WHERE account_id = a.id) AS held,
            (SELECT coalesce(sum(delta), 0) FROM credit_ledger WHERE account_id = a.id) AS ledger_total,
            (SELECT count(*)::int FROM verify_transactions WHERE account_id = a.id) AS vts
     FROM accounts a WHERE a.id = $1`,
    [accountId],
  );
  const r = rows[0];
  return r ? { credits: r.credits, usage: r.usage, held: r.held, ledgerTotal: Number(r.ledger_total), verifyTransactions: r.vts } : null;
}
