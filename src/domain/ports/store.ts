// The storage port. Every engine (src/store/sqlite, postgres, mongo)
// implements it and runs the same contract suite in test/store/. What a
// money change means is decided in domain/money-rules.ts; engines perform it
// as atomic writes, never as read-modify-write code in the caller.
import type { StoreFailedError } from './store-errors.js';
import type { AccountStore } from './store-accounts.js';
import type { ReceiverStore } from './store-receivers.js';
import type { VerifyPathStore } from './store-verify-path.js';
import type { RecordsStore } from './store-records.js';
import type { AdminStore } from './store-admin.js';
import type { RetentionStore } from './store-retention.js';
import type { WebhookStore } from './store-webhooks.js';
import type { PaymentRequestStore } from './store-payments.js';
import type { LineStore } from './store-line.js';
import type { RecheckStore } from './store-rechecks.js';

export type { Page } from './store-page.js';
export type { AccountQuery } from './store-accounts.js';
export type { HoldResult, RecoveryResult, SettlePayment } from './store-verify-path.js';
export type { AuditQuery, AuditTotals, LedgerResult, UsageRow } from './store-records.js';
export type { PassBatch, PassBatchResult, PassCursor, PersonalDataCounts, PersonalDataScope, PurgeReport, Redact, RedactRecheck } from './store-retention.js';
export { ConstraintViolationError, StoreError, StoreFailedError, constraintViolation, type StoreErrorCode } from './store-errors.js';

/** Every concern's operations, plus the engine's own lifecycle. */
export interface Store
  extends AccountStore,
    ReceiverStore,
    VerifyPathStore,
    RecordsStore,
    AdminStore,
    RetentionStore,
    WebhookStore,
    PaymentRequestStore,
    LineStore,
    RecheckStore {
  readonly engine: 'sqlite' | 'postgres' | 'mongo';
  /** Creates tables/collections and indexes; safe to run on every start. */
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Resolves if the engine can no longer vouch for what is on disk (SQLite:
   * a failed fsync). From then on every call fails with a StoreFailedError
   * and only a new process, whose start runs recovery, serves again.
   * Absent on engines whose server owns durability (PostgreSQL, MongoDB).
   */
  readonly failed?: Promise<StoreFailedError>;
}
