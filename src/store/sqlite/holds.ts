// The verify path's money writes on SQLite: hold a credit, then settle
// (charge, and pay the payment request it names) or release (refund) it.
// Each runs atomically in its own savepoint of a group commit
// (group-commit.ts). Also the leases and crash recovery
// that end the holds of a dead process.
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { HoldResult, RecoveryResult, SettlePayment } from '../../domain/ports/store.js';
import type { PayResult } from '../../domain/payments/types.js';
import { keepVerdict, payInSettle } from './payments.js';
import type { Lite } from './connection.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import * as row from './rows.js';

export async function holdCredit(lite: Lite, hold: CreditHold): Promise<HoldResult> {
  // Not flushed before the bank is asked: see group-commit.ts.
  return lite.writes.run(() => lite.verifyWrite.hold(hold), false);
}

export async function settleHold(lite: Lite, r: VerifyTransactionRecord, deliveries: readonly NewWebhookDelivery[] = [], payment?: SettlePayment): Promise<PayResult | undefined> {
  return lite.writes.run(() => {
    lite.verifyWrite.settle(r, deliveries);
    // In the same savepoint: a payment that throws takes the charge back with it.
    if (payment) return payInSettle(lite, payment);
    if (r.payment) keepVerdict(lite, r.id, r.payment);
    return undefined;
  });
}

export async function releaseHold(lite: Lite, r: RequestErrorRecord & { accountId: string }): Promise<number> {
  return lite.writes.run(() => lite.verifyWrite.release(r), false);
}

export async function recoverStaleHolds(lite: Lite, olderThan: Date, now: Date): Promise<RecoveryResult> {
  return lite.recovery.recover(olderThan, now);
}

export async function startLease(lite: Lite, instanceId: string, ttlMs: number, now: Date): Promise<void> {
  lite.recovery.startLease(instanceId, ttlMs, now);
}

export async function renewLease(lite: Lite, instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
  return lite.recovery.renewLease(instanceId, ttlMs, now);
}

export async function endLease(lite: Lite, instanceId: string): Promise<void> {
  lite.recovery.endLease(instanceId);
}

export async function listHolds(lite: Lite, accountId?: string): Promise<CreditHold[]> {
  const rows = accountId
    ? lite.sql('SELECT * FROM credit_holds WHERE account_id = ? ORDER BY created_at').all(accountId)
    : lite.sql('SELECT * FROM credit_holds ORDER BY created_at').all();
  return (rows as row.HoldRow[]).map(row.hold);
}

export async function insertRequestError(lite: Lite, r: RequestErrorRecord): Promise<void> {
  await lite.writes.run(() => lite.stmt.insertError.run(row.errorParams(r)));
}
