// The storage port. Every engine (src/store/sqlite, postgres, mongo)
// implements it and runs the same contract suite in test/store/. What a
// money change means is decided in domain/money-rules.ts; engines perform it
// as atomic writes, never as read-modify-write code in the caller.
import type {
  Account,
  AdminEvent,
  AdminToken,
  ApiKey,
  CreditHold,
  LedgerEntry,
  Receiver,
  ReceiverPolicy,
  RequestErrorRecord,
  VerifyTransactionRecord,
  VerifiedSlip,
  ErrorKind,
} from '../types.js';
import type { LineChannel, LineEventClaim } from '../line/types.js';
import type { DeliveryNext, DeliveryQuery, NewWebhookDelivery, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../webhooks/types.js';
import type { CreatePaymentResult, PayResult, PayingSlip, PaymentQuery, PaymentRequest } from '../payments/types.js';

/** A hold reports the balance its own write left: no second read on the hot path. */
export type HoldResult = { status: 'held'; credits: number } | { status: 'insufficient' } | { status: 'no_account' };

export interface Page<T> {
  items: T[];
  /** Opaque cursor for the next page, null at the end. */
  next: string | null;
}

export interface AuditQuery {
  accountId?: string;
  from?: Date;
  /** Exclusive upper bound. */
  to?: Date;
  requestId?: string;
  /** The slip's transaction reference; on failures, as read from its QR. */
  transactionId?: string;
  sendingBank?: string;
  /** Verifications only. */
  receivingBank?: string;
  upstream?: string;
  kind?: ErrorKind;
  limit: number;
  /** Cursor from a previous page (newest first). */
  after?: string | null;
}

export interface AccountQuery {
  search?: string;
  /** Reconciliation needs deleted accounts too; lists for people do not. */
  includeDeleted?: boolean;
  limit: number;
  after?: string | null;
}

export interface UsageRow {
  accountId: string;
  /** Day in Asia/Bangkok, YYYY-MM-DD. */
  day: string;
  successes: number;
  failures: Partial<Record<ErrorKind, number>>;
}

export interface RecoveryResult {
  /** Holds whose verification was recorded: charged (usage +1). */
  consumed: number;
  /** Holds with no success record: credit returned, RequestError written. */
  released: number;
}

/** An account's balance and the records it must agree with (reconciliation). */
export interface AuditTotals {
  credits: number;
  held: number;
  usage: number;
  /** Sum of every ledger delta (initial credits, top-ups, adjustments). */
  ledgerTotal: number;
  verifyTransactions: number;
}

/**
 * The records a retention pass covers (created before an instant) or an
 * erasure request (every record of one account, whatever its age).
 */
export type PersonalDataScope = { createdBefore: Date } | { accountId: string };

/** What a redaction keeps of a verification's personal fields (domain/redaction.ts decides). */
export type Redact = (personal: { qrcode: string; response: VerifiedSlip }) => { qrcode: string; response: VerifiedSlip; lineUserId: null };

/**
 * Where a retention or erasure pass has got to: the (createdAt, id) of the
 * last record its latest batch read. The next batch reads strictly after it
 * in that order, from an index range that starts there, so a pass reads each
 * record once however many batches it takes (not the whole scope again).
 */
export interface PassCursor {
  createdAt: Date;
  id: string;
}

/** One batch of a pass: at most `limit` records after `after` (null: from the start). */
export interface PassBatch {
  limit: number;
  after: PassCursor | null;
}

export interface PassBatchResult {
  /** Records this batch redacted or deleted. */
  changed: number;
  /** The last record it read, where the next batch starts; null when none was left: the pass is over. */
  last: PassCursor | null;
}

/** What the engine did after a pass so the removed values leave its own files too (see SECURITY.md for what remains elsewhere). */
export interface PurgeReport {
  /** False when the engine could not finish it now (SQLite: another connection kept the WAL in use); the next pass tries again. */
  complete: boolean;
  detail: string;
}

export interface PersonalDataCounts {
  /** Verification records in scope not yet redacted. */
  verifyTransactions: number;
  /** Failed-request records in scope (retention deletes them). */
  requestErrors: number;
}

export interface LedgerResult {
  entry: LedgerEntry;
  /** False when the idempotency key had already been used. */
  created: boolean;
  account: Account;
}

export interface Store {
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

  createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account>;
  /** Returns deleted accounts too (deletedAt set). */
  getAccount(id: string): Promise<Account | null>;
  getAccounts(ids: readonly string[]): Promise<Account[]>;
  listAccounts(query: AccountQuery): Promise<Page<Account>>;
  /** Soft delete: keys stop working (1022), audit history stays. */
  deleteAccount(id: string, at: Date): Promise<boolean>;

  createApiKey(key: ApiKey): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKey | null>;
  getApiKey(id: string): Promise<ApiKey | null>;
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  revokeApiKey(id: string, at: Date): Promise<boolean>;
  /** Replaces the key's allowed CIDR ranges (empty = any address); false for an unknown key. */
  setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean>;
  touchApiKey(id: string, at: Date): Promise<void>;

  /** Throws StoreError 'conflict' for an unknown account or a used id. */
  createReceiver(receiver: Receiver): Promise<void>;
  getReceiver(id: string): Promise<Receiver | null>;
  /** The account's receivers, active or not, oldest first. */
  listReceivers(accountId: string): Promise<Receiver[]>;
  /** False for an unknown receiver. */
  setReceiverActive(id: string, active: boolean): Promise<boolean>;
  /** False for an unknown receiver. */
  deleteReceiver(id: string): Promise<boolean>;
  /** False for an unknown or deleted account. */
  setReceiverPolicy(accountId: string, policy: ReceiverPolicy): Promise<boolean>;

  /** Atomically moves one credit from `credits` to a hold, iff credits > 0. */
  holdCredit(hold: CreditHold): Promise<HoldResult>;
  /**
   * Consumes the hold: usage +1, the success record and its webhook
   * deliveries (the outbox), all or nothing.
   */
  settleHold(record: VerifyTransactionRecord, deliveries?: readonly NewWebhookDelivery[]): Promise<void>;
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

  /**
   * Adds `delta` credits (may be negative for adjustments) with a ledger
   * entry. Idempotent on `idempotencyKey`. Throws StoreError 'not_found' for
   * an unknown or deleted account and 'insufficient' when a negative delta
   * would overdraw.
   */
  applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult>;
  listLedger(accountId: string, limit: number): Promise<LedgerEntry[]>;
  /**
   * Null for an unknown account. The SQL engines read it in one statement (one
   * snapshot), so it adds up even while verifications run; MongoDB cannot.
   */
  auditTotals(accountId: string): Promise<AuditTotals | null>;

  createAdminToken(token: AdminToken): Promise<void>;
  findAdminTokenByHash(hash: string): Promise<AdminToken | null>;
  listAdminTokens(): Promise<AdminToken[]>;
  revokeAdminToken(id: string, at: Date): Promise<boolean>;
  /** An id stored before is left as it is: retried actions record their event once. */
  insertAdminEvent(event: AdminEvent): Promise<void>;
  /** Newest first; `targetId` narrows to one account/key/token. */
  listAdminEvents(query: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>>;

  listVerifyTransactions(query: AuditQuery): Promise<Page<VerifyTransactionRecord>>;
  listRequestErrors(query: AuditQuery): Promise<Page<RequestErrorRecord>>;
  /** Per account and Bangkok day; successes and failures by kind. */
  usage(query: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]>;

  // Personal data retention and erasure (domain/retention.ts). Each call is
  // one short write (one transaction on the SQL engines) over at most
  // `limit` records in (createdAt, id) order after the batch's cursor, so the
  // caller can yield between batches and verifications never wait long.
  // Repeating a call is harmless: only records not yet redacted are
  // redacted, and deleting is idempotent.

  /** How many records a pass over `scope` would redact and delete (dry run). */
  countPersonalData(scope: PersonalDataScope): Promise<PersonalDataCounts>;
  /**
   * Replaces the personal fields of the unredacted verification records in
   * `scope` among the next `batch.limit` after `batch.after` with what
   * `redact` keeps, and sets redactedAt = `at`. Every other field (account,
   * key, amount, banks, reference, time…) stays.
   */
  redactVerifyTransactions(scope: PersonalDataScope, redact: Redact, at: Date, batch: PassBatch): Promise<PassBatchResult>;
  /** Deletes the failed-request records in `scope` among the next `batch.limit` after `batch.after`. */
  deleteRequestErrors(scope: PersonalDataScope, batch: PassBatch): Promise<PassBatchResult>;
  /**
   * After a pass: makes the engine drop the old versions of what it
   * removed from its own files where it can (SQLite: checkpoint and truncate
   * the WAL; PostgreSQL: VACUUM; MongoDB: compact where allowed).
   */
  purgeRemovedData(): Promise<PurgeReport>;
  /**
   * The smallest id among live leases (PostgreSQL: judged by the database
   * clock), null when none is live. Lease ids are time-ordered, so this is
   * the longest-running process: the one that runs periodic retention.
   */
  firstLiveLease(now: Date): Promise<string | null>;

  // Webhooks (domain/webhooks). Deliveries are written by the state change
  // that causes them (settleHold) and worked off by the delivery worker.

  createWebhookEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  /** Removed endpoints too (removedAt set). */
  getWebhookEndpoint(id: string): Promise<WebhookEndpoint | null>;
  /** The account's endpoints not removed, oldest first. */
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** False for an unknown or already removed endpoint. */
  removeWebhookEndpoint(id: string, at: Date): Promise<boolean>;
  /**
   * Takes up to `limit` pending deliveries due at `now` that no live claim
   * holds, and holds them under `claim` until `now + leaseMs`: two callers
   * never get the same delivery while its lease lasts. Oldest due first.
   */
  claimWebhookDeliveries(q: { claim: string; now: Date; leaseMs: number; limit: number }): Promise<WebhookDelivery[]>;
  /**
   * Records an attempt and what follows, iff the delivery is still held
   * under `claim` (a lease that ran out may have been claimed again).
   */
  finishWebhookAttempt(id: string, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<boolean>;
  getWebhookDelivery(id: string): Promise<WebhookDelivery | null>;
  /** Newest first. */
  listWebhookDeliveries(q: DeliveryQuery): Promise<Page<WebhookDelivery>>;
  /** Makes the delivery pending and due at `now`, whatever its state; false for an unknown id. */
  redeliverWebhook(id: string, now: Date): Promise<boolean>;

  // Payment requests (domain/payments). Each write below is atomic: a
  // reference makes one request per account, a unique amount is held by one
  // pending request of its receiver, a request is paid once and a slip pays
  // once, whatever runs at the same time on other instances.

  /** Whether the account's new payment requests get unique amounts (false for an unknown account). */
  uniquePaymentAmounts(accountId: string): Promise<boolean>;
  /** False for an unknown or deleted account. */
  setUniquePaymentAmounts(accountId: string, on: boolean): Promise<boolean>;
  /** The account's request with the same reference, if any, wins: it is handed back and nothing is written. */
  createPaymentRequest(request: PaymentRequest): Promise<CreatePaymentResult>;
  getPaymentRequest(id: string): Promise<PaymentRequest | null>;
  findPaymentRequest(accountId: string, reference: string): Promise<PaymentRequest | null>;
  /** Newest first. */
  listPaymentRequests(query: PaymentQuery): Promise<Page<PaymentRequest>>;
  /** Pending → cancelled; the request as it is after (unchanged when not pending), null for an unknown id. */
  cancelPaymentRequest(id: string, at: Date): Promise<PaymentRequest | null>;
  /**
   * Pending → paid by `slip`, with the `payment_request.paid` deliveries in
   * the same write, iff the request is still pending and the slip (its
   * transaction id at its sending bank) has paid no request. A slip that
   * already paid this very request is `paid` again (a retried verification).
   * Throws StoreError 'not_found' for an unknown id.
   */
  payPaymentRequest(id: string, slip: PayingSlip, at: Date, deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[]): Promise<PayResult>;
  /** Up to `limit` pending requests that expired at or before `now`, soonest expired first. */
  duePaymentRequests(now: Date, limit: number): Promise<PaymentRequest[]>;
  /**
   * Marks each of `ids` still pending and expired at or before `now` as
   * expired, with its `payment_request.expired` deliveries in the same
   * write. Returns those it marked (a request paid or cancelled meanwhile is
   * left as it is).
   */
  expirePaymentRequests(ids: readonly string[], now: Date, deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[]): Promise<PaymentRequest[]>;
  // LINE channels (domain/line). One channel id is connected to one account at a time.

  /** Throws StoreError 'conflict' when the channel id is connected already or the account is unknown. */
  createLineChannel(channel: LineChannel): Promise<void>;
  getLineChannel(channelId: string): Promise<LineChannel | null>;
  /** Every connected channel, or one account's; oldest first. */
  listLineChannels(accountId?: string): Promise<LineChannel[]>;
  /** False for a channel not connected. */
  deleteLineChannel(channelId: string): Promise<boolean>;
  /**
   * Records that a webhook event was taken for processing. True the first
   * time; false for a redelivery of an event already taken (any process,
   * any restart), which must not be processed again.
   */
  claimLineEvent(claim: LineEventClaim): Promise<boolean>;
  /** Forgets event claims taken before `before` (LINE stops redelivering long before); resolves to how many. */
  pruneLineEvents(before: Date): Promise<number>;
}

/** 'invalid_cursor': an `after` that no page handed out (the caller's mistake, not a clash of writes). */
export type StoreErrorCode = 'not_found' | 'conflict' | 'insufficient' | 'unavailable' | 'invalid_cursor';

/** Engine errors mapped to what callers can act on. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * A write the database refused for breaking one of its own rules (a unique
 * or foreign key, a CHECK such as credits >= 0, NOT NULL). 'conflict' to
 * callers that expect clashes (an id taken twice); where the code's own
 * guards should have ruled it out, as on the verify path, it is a bug.
 */
export class ConstraintViolationError extends StoreError {
  constructor(
    /** The rule, as the database names it (e.g. accounts_credits_check). */
    readonly constraint: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('conflict', message, options);
    this.name = 'ConstraintViolationError';
  }
}

/** The ConstraintViolationError behind `err`, if any (callers wrap store errors in their own). */
export function constraintViolation(err: unknown): ConstraintViolationError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ConstraintViolationError) return e;
  }
  return null;
}

/**
 * The store has stopped for good: a write whose effect on disk is unknown
 * (a failed fsync) makes anything acknowledged after it a possible lie.
 * 'unavailable' to callers, so a verification answers 503 before a charge
 * and "outcome unknown" (500) after the bank answered.
 */
export class StoreFailedError extends StoreError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('unavailable', `store failed: ${reason}; restart slipgate to recover`, options);
    this.name = 'StoreFailedError';
  }
}
