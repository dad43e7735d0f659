// Mongoose schemas and their indexes (webhooks, payment requests and LINE in
// their own *-schemas.ts files). Indexes are declared with them and built by
// MongoStore.migrate() (autoIndex is off: building them is a startup step
// that must finish, or fail, before the gateway listens). No TTL or
// partialFilterExpression indexes: FerretDB, the test server, lacks them.
import { Schema, type Connection, type Model, type mongo } from 'mongoose';
import type {
  AccountDoc,
  AdminEventDoc,
  AdminTokenDoc,
  ApiKeyDoc,
  HoldEntry,
  HoldOutcomeDoc,
  InstanceLeaseDoc,
  LedgerDoc,
  ReceiverDoc,
  RequestErrorDoc,
  VerifyTransactionDoc,
} from './docs.js';
import { definePaymentModels, type PaymentModels } from './payment-schemas.js';
import { defineWebhookModels, type WebhookModels } from './webhook-schemas.js';
import { defineLineModels, type LineModels } from './line-schemas.js';
import { defineRecheckModels, type RecheckModels } from './recheck-schemas.js';
import { Int32, NEWEST, OPTIONS, date, optDate, optStr, str } from './schema-fields.js';

const holdSchema = new Schema<HoldEntry>({ _id: str, keyId: str, createdAt: date, instanceId: optStr }, { ...OPTIONS });

const accountSchema = new Schema<AccountDoc>(
  {
    _id: str,
    name: str,
    // Credits are whole numbers: Int32 keeps $inc exact and refuses fractions.
    credits: { type: Int32, required: true },
    usage: { type: Int32, required: true },
    holds: { type: [holdSchema], default: [] },
    appliedLedger: { type: [String], default: [] },
    refusedLedger: { type: [String], default: [] },
    createdAt: date,
    deletedAt: optDate,
    receiverPolicy: { type: String, default: 'off' },
    uniquePaymentAmounts: { type: Boolean, default: false },
    // account.credits_low (domain/credits-low.ts): the threshold (absent or null: off) and whether the fall was announced.
    creditsLowAt: { type: Int32, default: null },
    creditsLowNotified: { type: Boolean, default: false },
  },
  OPTIONS,
);
accountSchema.index(NEWEST);
// Stale-hold recovery looks for accounts holding credits since before a cutoff.
accountSchema.index({ 'holds.createdAt': 1 });
// … and for the holds of processes whose lease expired.
accountSchema.index({ 'holds.instanceId': 1 });

const apiKeySchema = new Schema<ApiKeyDoc>(
  { _id: str, accountId: str, prefix: str, hash: str, createdAt: date, lastUsedAt: optDate, revokedAt: optDate, allowedIps: { type: [String], default: undefined } },
  OPTIONS,
);
apiKeySchema.index({ hash: 1 }, { unique: true });
apiKeySchema.index({ accountId: 1, ...NEWEST });

const verifyTransactionSchema = new Schema<VerifyTransactionDoc>(
  {
    _id: str,
    accountId: str,
    keyId: str,
    requestId: str,
    qrcode: str,
    transactionId: str,
    // Baht with satang; the gateway never sums amounts in the store.
    amount: { type: Number, required: true },
    sendingBank: str,
    receivingBank: str,
    upstream: str,
    latencyMs: { type: Number, required: true },
    // The caller's `data` (rawData included), stored and returned unchanged.
    response: { type: Schema.Types.Mixed, required: true },
    createdAt: date,
    // Absent: the caller sent the QR text.
    source: { type: String, required: false },
    // The LINE user who sent the slip (source 'line'); retention sets it to null.
    lineUserId: { type: String, required: false },
    // Absent or null: the personal fields are still there (domain/retention.ts).
    redactedAt: { type: Date, required: false },
    // The webhook outbox (webhooks.ts): absent once moved, or when no endpoint listens.
    outbox: { type: [Schema.Types.Mixed], default: undefined },
    outboxAt: { type: Date, required: false },
    // The payment request its settle pays, until paid (holds.ts).
    paying: { type: Schema.Types.Mixed, required: false },
    // What the slip did to the payment request it was sent for: { requestId, status, reason }.
    payment: { type: Schema.Types.Mixed, required: false },
  },
  OPTIONS,
);
// Every lookup of the verify path and of the admin API's common filters has
// an index: equality fields first, then the page order, so no lookup reads an
// account's whole history and no page is sorted in memory.
verifyTransactionSchema.index({ accountId: 1, ...NEWEST });
verifyTransactionSchema.index(NEWEST);
// The duplicate check: one account's verifications of one slip.
verifyTransactionSchema.index({ accountId: 1, transactionId: 1, sendingBank: 1, ...NEWEST });
verifyTransactionSchema.index({ transactionId: 1, ...NEWEST });
verifyTransactionSchema.index({ requestId: 1, ...NEWEST });
// Retention reads the records not yet redacted oldest first, from its cursor
// (domain/retention.ts): equality on redactedAt, then the pass's order, so a
// batch is an index range with no sort (no partial index on the test server).
verifyTransactionSchema.index({ redactedAt: 1, createdAt: 1, _id: 1 });
// The webhook worker finds records whose outbox is still to move.
verifyTransactionSchema.index({ outboxAt: 1 });

const requestErrorSchema = new Schema<RequestErrorDoc>(
  {
    _id: str,
    accountId: optStr,
    keyId: optStr,
    requestId: str,
    qrcode: optStr,
    transactionId: optStr,
    sendingBank: optStr,
    kind: str,
    message: str,
    upstream: optStr,
    latencyMs: { type: Number, default: null },
    createdAt: date,
    lineUserId: { type: String, required: false },
  },
  OPTIONS,
);
requestErrorSchema.index({ accountId: 1, ...NEWEST });
requestErrorSchema.index(NEWEST);
requestErrorSchema.index({ transactionId: 1, ...NEWEST });
requestErrorSchema.index({ requestId: 1, ...NEWEST });

const ledgerSchema = new Schema<LedgerDoc>(
  {
    _id: str,
    accountId: str,
    kind: str,
    delta: { type: Int32, required: true },
    reason: str,
    actor: str,
    idempotencyKey: optStr,
    claim: str,
    state: { type: String, enum: ['pending', 'applied'], required: true },
    appliedAt: optDate,
    pruned: { type: Boolean, required: true },
    createdAt: date,
  },
  OPTIONS,
);
ledgerSchema.index({ claim: 1 }, { unique: true });
ledgerSchema.index({ accountId: 1, ...NEWEST });
// Recovery: pending entries to finish, applied ones to prune (ledger.ts).
ledgerSchema.index({ state: 1, createdAt: 1 });
ledgerSchema.index({ pruned: 1, appliedAt: 1 });

const holdOutcomeSchema = new Schema<HoldOutcomeDoc>(
  { _id: str, accountId: str, outcome: { type: String, enum: ['charged', 'refunded'], required: true }, at: date },
  OPTIONS,
);
// Purged by recovery after a day (no TTL index on the test server).
holdOutcomeSchema.index({ at: 1 });

const instanceLeaseSchema = new Schema<InstanceLeaseDoc>({ _id: str, startedAt: date, expiresAt: date }, OPTIONS);
instanceLeaseSchema.index({ expiresAt: 1 });

const adminTokenSchema = new Schema<AdminTokenDoc>(
  { _id: str, name: str, role: str, prefix: str, hash: str, createdAt: date, lastUsedAt: optDate, revokedAt: optDate },
  OPTIONS,
);
adminTokenSchema.index({ hash: 1 }, { unique: true });
adminTokenSchema.index(NEWEST);

const adminEventSchema = new Schema<AdminEventDoc>(
  { _id: str, actor: str, action: str, targetId: optStr, reason: optStr, details: { type: Schema.Types.Mixed, required: true }, createdAt: date },
  OPTIONS,
);
adminEventSchema.index(NEWEST);
adminEventSchema.index({ targetId: 1, ...NEWEST });

const receiverSchema = new Schema<ReceiverDoc>(
  {
    _id: str,
    accountId: str,
    kind: str,
    bankCode: optStr,
    number: str,
    proxyType: optStr,
    nameTh: optStr,
    nameEn: optStr,
    label: optStr,
    active: { type: Boolean, required: true },
    createdAt: date,
  },
  OPTIONS,
);
// The verify path's cache reads one account's receivers, oldest first.
receiverSchema.index({ accountId: 1, createdAt: 1, _id: 1 });

/** Indexes an earlier version built that a wider one above now covers; migrate() drops them. */
export const RETIRED_INDEXES: Partial<Record<keyof Models, string[]>> = {
  verifyTransactions: ['transactionId_1', 'redactedAt_1_createdAt_1'],
  requestErrors: ['transactionId_1', 'requestId_1'],
};

export interface Models extends WebhookModels, PaymentModels, LineModels, RecheckModels {
  accounts: Model<AccountDoc>;
  apiKeys: Model<ApiKeyDoc>;
  verifyTransactions: Model<VerifyTransactionDoc>;
  requestErrors: Model<RequestErrorDoc>;
  ledger: Model<LedgerDoc>;
  holdOutcomes: Model<HoldOutcomeDoc>;
  instanceLeases: Model<InstanceLeaseDoc>;
  adminTokens: Model<AdminTokenDoc>;
  adminEvents: Model<AdminEventDoc>;
  receivers: Model<ReceiverDoc>;
}

/** Registers the models on one connection (one store = one connection). */
export function defineModels(conn: Connection): Models {
  return {
    accounts: conn.model<AccountDoc>('Account', accountSchema, 'accounts'),
    apiKeys: conn.model<ApiKeyDoc>('ApiKey', apiKeySchema, 'api_keys'),
    verifyTransactions: conn.model<VerifyTransactionDoc>('VerifyTransaction', verifyTransactionSchema, 'verify_transactions'),
    requestErrors: conn.model<RequestErrorDoc>('RequestError', requestErrorSchema, 'request_errors'),
    ledger: conn.model<LedgerDoc>('CreditLedger', ledgerSchema, 'credit_ledger'),
    holdOutcomes: conn.model<HoldOutcomeDoc>('HoldOutcome', holdOutcomeSchema, 'hold_outcomes'),
    instanceLeases: conn.model<InstanceLeaseDoc>('InstanceLease', instanceLeaseSchema, 'instance_leases'),
    adminTokens: conn.model<AdminTokenDoc>('AdminToken', adminTokenSchema, 'admin_tokens'),
    adminEvents: conn.model<AdminEventDoc>('AdminEvent', adminEventSchema, 'admin_events'),
    receivers: conn.model<ReceiverDoc>('Receiver', receiverSchema, 'receivers'),
    ...defineWebhookModels(conn),
    ...definePaymentModels(conn),
    ...defineLineModels(conn),
    ...defineRecheckModels(conn),
  };
}

/**
 * The accounts collection through the driver itself: the money writes must
 * reach the server exactly as written (no casting, no defaults added).
 */
export function rawAccounts(m: Models): mongo.Collection<AccountDoc> {
  return m.accounts.collection as unknown as mongo.Collection<AccountDoc>;
}
