// Storage port: the writes a verification makes (hold, settle, release),
// crash recovery of holds and the leases that tell live processes apart.
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../types.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import type { PayResult, PayingSlip, PaymentRequest } from '../payments/types.js';

/** A hold reports the balance its own write left: no second read on the hot path. */
export type HoldResult = { status: 'held'; credits: number } | { status: 'insufficient' } | { status: 'no_account' };

export interface RecoveryResult {
  /** Holds whose verification was recorded: charged (usage +1). */
  consumed: number;
  /** Holds with no success record: credit returned, RequestError written. */
  released: number;
}

/**
 * The payment request a settle pays (domain/payments/paying.ts): decided in
 * the settle's own atomic write, so a charge and its payment decision are on
 * disk together or not at all, whatever crashes between them.
 */
export interface SettlePayment {
  /** The request as read before the settle (the domain's checks ran on it). */
  request: PaymentRequest;
  slip: PayingSlip;
  at: Date;
  /** The `payment_request.paid` deliveries, built for the request as this slip pays it; written iff it does. */
  deliveries: readonly NewWebhookDelivery[];
}

export interface VerifyPathStore {
  /** Atomically moves one credit from `credits` to a hold, iff credits > 0. */
  holdCredit(hold: CreditHold): Promise<HoldResult>;
  /**
   * Consumes the hold: usage +1, the success record and its webhook
   * deliveries (the outbox), all or nothing. With `payment`, the same write
   * also pays the request iff it is still pending and the slip (its
   * transaction id at its sending bank) has paid no request; a slip that
   * already paid this very request is `paid` again. Resolves to what the
   * payment found (undefined without one).
   */
  settleHold(record: VerifyTransactionRecord, deliveries?: readonly NewWebhookDelivery[], payment?: SettlePayment): Promise<PayResult | undefined>;
  /**
   * Returns the held credit and writes the failure record, all or nothing.
   * Resolves to the account's credits after the release.
   */
  releaseHold(record: RequestErrorRecord & { accountId: string }): Promise<number>;
  /**
   * Crash recovery: settles (success record present) or releases holds
   * created before `olderThan`, and at once, whatever their age, those of an
   * instance whose lease expired before `now`; then deletes expired leases
   * that hold nothing. PostgreSQL judges expiry by its own clock, not `now`.
   */
  recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult>;
  listHolds(accountId?: string): Promise<CreditHold[]>;

  /**
   * Registers a serving process's lease, live until `now + ttlMs` (PostgreSQL:
   * the database clock). The caller picks a fresh id each time.
   */
  startLease(instanceId: string, ttlMs: number, now: Date): Promise<void>;
  /**
   * Extends a lease that is still live. False when it has expired or is gone:
   * an expired lease never comes back, its holds are recovery's, and the
   * process starts a new one under a new id.
   */
  renewLease(instanceId: string, ttlMs: number, now: Date): Promise<boolean>;
  /** Deletes the record (graceful shutdown, after draining). */
  endLease(instanceId: string): Promise<void>;

  /** Records a failure that never held a credit. */
  insertRequestError(record: RequestErrorRecord): Promise<void>;
}
