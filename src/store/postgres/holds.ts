// The verify path's money writes on PostgreSQL: hold a credit, then settle
// (charge) or release (refund) it, each one statement and so one
// transaction, with its guards evaluated under PostgreSQL's row locks. Also
// the leases and crash recovery that end the holds of a dead process.
//
// Only the settle (an answered charge) waits for the WAL flush. Holds and
// releases commit with synchronous_commit off (set inside the statement, so
// for its own transaction only, at no extra round trip): a hold lost in a crash is
// money never taken (its request never got an answer), a release lost
// leaves a hold that recovery refunds, and the settle or any durable commit
// that follows flushes the WAL up to and past them.
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { HoldResult, RecoveryResult, SettlePayment } from '../../domain/ports/store.js';
import type { PayResult } from '../../domain/payments/types.js';
import { settleAndPay, settleWithVerdict } from './payments.js';
import type { PgDb } from './db.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import * as recovery from './recovery.js';
import * as row from './rows.js';
import { LAZY_COMMIT } from './hold-batch.js';

// The verify path's statements, named so that each connection prepares them once.
const RELEASE_HOLD = {
  name: 'slipgate_release_hold',
  text: `WITH released AS (
     DELETE FROM credit_holds WHERE id = $1 AND account_id = $2 RETURNING account_id
   ), refunded AS (
     UPDATE accounts SET credits = credits + 1 WHERE id IN (SELECT account_id FROM released)
     RETURNING credits
   ), recorded AS (
     ${row.INSERT_ERROR}
   )
   SELECT coalesce((SELECT credits FROM refunded), (SELECT credits FROM accounts WHERE id = $2), 0) AS credits,
          ${LAZY_COMMIT}`,
};
const INSERT_REQUEST_ERROR = {
  name: 'slipgate_insert_request_error',
  text: row.INSERT_ERROR,
};

export async function holdCredit(db: PgDb, hold: CreditHold): Promise<HoldResult> {
  return db.holds.run(hold);
}

export async function settleHold(db: PgDb, r: VerifyTransactionRecord, deliveries: readonly NewWebhookDelivery[] = [], payment?: SettlePayment): Promise<PayResult | undefined> {
  if (payment) return settleAndPay(db, { record: r, deliveries }, payment);
  if (r.payment) await settleWithVerdict(db, { record: r, deliveries });
  else await db.settles.run({ record: r, deliveries });
  return undefined;
}

export async function releaseHold(db: PgDb, r: RequestErrorRecord & { accountId: string }): Promise<number> {
  // The refund's own RETURNING; the fallback read (same statement) covers a hold recovery already released.
  const { rows } = await db.run<{ credits: number }>(RELEASE_HOLD, row.errorParams(r));
  return rows[0]!.credits;
}

export async function recoverStaleHolds(db: PgDb, olderThan: Date, now: Date): Promise<RecoveryResult> {
  return recovery.recover(db, olderThan, now);
}

// Lease times come from the database clock; `now` is for the engines without one.
export async function startLease(db: PgDb, instanceId: string, ttlMs: number): Promise<void> {
  await recovery.startLease(db.run, instanceId, ttlMs);
}

export async function renewLease(db: PgDb, instanceId: string, ttlMs: number): Promise<boolean> {
  return recovery.renewLease(db.run, instanceId, ttlMs);
}

export async function endLease(db: PgDb, instanceId: string): Promise<void> {
  await recovery.endLease(db.run, instanceId);
}

export async function listHolds(db: PgDb, accountId?: string): Promise<CreditHold[]> {
  const { rows } = accountId
    ? await db.run<row.HoldRow>('SELECT * FROM credit_holds WHERE account_id = $1 ORDER BY created_at', [accountId])
    : await db.run<row.HoldRow>('SELECT * FROM credit_holds ORDER BY created_at');
  return rows.map(row.hold);
}

export async function insertRequestError(db: PgDb, r: RequestErrorRecord): Promise<void> {
  await db.run(INSERT_REQUEST_ERROR, row.errorParams(r));
}
