// Document shapes of the MongoDB store. Ids are the domain's string ids, stored as `_id`.
import type { VerifyTransactionRecord } from '../../domain/types.js';
import type { PayingSlip, PaymentRecord, PaymentStatus } from '../../domain/payments/types.js';

/** A credit taken out of `credits`, kept inside the account document. */
export interface HoldEntry {
  _id: string;
  keyId: string;
  createdAt: Date;
  /** The lease it was taken under; absent on holds older than leases. */
  instanceId?: string | null;
}

export interface AccountDoc {
  _id: string;
  name: string;
  credits: number;
  usage: number;
  holds: HoldEntry[];
  /** Ledger entries whose delta is in `credits` (see ledger.ts). */
  appliedLedger: string[];
  /** Ledger entries refused for this account (see ledger.ts). */
  refusedLedger: string[];
  createdAt: Date;
  deletedAt: Date | null;
  /** Absent on accounts written before receivers existed: 'off'. */
  receiverPolicy?: string;
  uniquePaymentAmounts?: boolean;
  creditsLowAt?: number | null;
  creditsLowNotified?: boolean;
}

export interface ReceiverDoc {
  _id: string;
  accountId: string;
  kind: string;
  bankCode: string | null;
  number: string;
  proxyType: string | null;
  nameTh: string | null;
  nameEn: string | null;
  label: string | null;
  active: boolean;
  createdAt: Date;
}

export interface ApiKeyDoc {
  _id: string;
  accountId: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Absent on keys written before allow-lists existed: any address. */
  allowedIps?: string[];
}

export interface VerifyTransactionDoc {
  _id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  qrcode: string;
  transactionId: string;
  amount: number;
  sendingBank: string;
  receivingBank: string;
  upstream: string;
  latencyMs: number;
  response: VerifyTransactionRecord['response'];
  createdAt: Date;
  source?: string | null;
  lineUserId?: string | null;
  redactedAt?: Date | null;
  /**
   * The webhook deliveries of this verification (the outbox), written with
   * it in one document; the worker moves them to webhook_deliveries once
   * the hold is known to be charged (webhooks.ts), then unsets both.
   */
  outbox?: WebhookDeliveryDoc[];
  outboxAt?: Date;
  /** The payment request this verification's settle pays, until it is paid (holds.ts). */
  paying?: PayingDoc;
  /** What the slip did to the payment request it was sent for (set with the payment, or with the record for a refusal). */
  payment?: PaymentRecord;
}

/**
 * A payment as its settle keeps it in the verification's document until it
 * is written: recovery finishes a settle that died between its charge and
 * its payment from this alone (the outbox: the `payment_request.paid`
 * deliveries, written with the payment).
 */
export interface PayingDoc {
  requestId: string;
  /** The request's status as the domain read it before the settle (the verdict of a slip already used says it). */
  requestStatus?: PaymentStatus;
  slip: PayingSlip;
  at: Date;
  outbox?: WebhookDeliveryDoc[];
  outboxAt?: Date;
}

export interface RequestErrorDoc {
  _id: string;
  accountId: string | null;
  keyId: string | null;
  requestId: string;
  qrcode: string | null;
  transactionId?: string | null;
  sendingBank?: string | null;
  kind: string;
  message: string;
  upstream: string | null;
  latencyMs: number | null;
  createdAt: Date;
  lineUserId?: string | null;
}

type LedgerState = 'pending' | 'applied';

export interface LedgerDoc {
  _id: string;
  accountId: string;
  kind: string;
  delta: number;
  reason: string;
  actor: string;
  idempotencyKey: string | null;
  /**
   * Unique: `key:<idempotencyKey>`, or `id:<entry id>` when there is none
   * (a unique index without partialFilterExpression counts null as a value).
   */
  claim: string;
  state: LedgerState;
  appliedAt: Date | null;
  /** The id was taken out of the account's appliedLedger again (ledger.ts). */
  pruned: boolean;
  createdAt: Date;
}

/** A serving process's lease (leases.ts); expiry by the process clock. */
export interface InstanceLeaseDoc {
  _id: string;
  startedAt: Date;
  expiresAt: Date;
}

/** Which way a hold went; inserting it is the decision (holds.ts). */
export interface HoldOutcomeDoc {
  _id: string;
  accountId: string;
  outcome: 'charged' | 'refunded';
  at: Date;
}

export interface AdminTokenDoc {
  _id: string;
  name: string;
  role: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface AdminEventDoc {
  _id: string;
  actor: string;
  action: string;
  targetId: string | null;
  reason: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface WebhookEndpointDoc {
  _id: string;
  accountId: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: Date;
  removedAt: Date | null;
}

export interface WebhookAttemptDoc {
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveryDoc {
  _id: string;
  eventId: string;
  endpointId: string;
  accountId: string;
  type: string;
  body: string;
  state: string;
  nextAttemptAt: Date;
  attempts: WebhookAttemptDoc[];
  claim: string | null;
  leaseUntil: Date | null;
  deliveredAt: Date | null;
  /** When it was delivered or failed; null or absent while pending (the retention pass deletes by it). */
  finishedAt?: Date | null;
  createdAt: Date;
}

export interface LineChannelDoc {
  /** LINE's channel id. */
  _id: string;
  accountId: string;
  secret: string;
  accessToken: string;
  lang: string;
  checks: boolean;
  matchPaymentRequests: boolean;
  /** Absent on channels connected before hints were an option: off. */
  hints?: boolean;
  createdAt: Date;
}

export interface LineStaffTargetDoc {
  /** `<channel id>:<target id>`: one entry per target. */
  _id: string;
  channelId: string;
  targetId: string;
  createdAt: Date;
}

export interface LineGroupDoc {
  /** `<channel id>:<group id>`. */
  _id: string;
  channelId: string;
  groupId: string;
  kind: string;
  joinedAt: Date;
  leftAt: Date | null;
}

export interface LineEventDoc {
  /** `<channel id>:<webhookEventId>`: the unique key makes a second claim fail. */
  _id: string;
  createdAt: Date;
}
