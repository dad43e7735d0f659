// Document shapes of the MongoDB store and their mapping to domain types.
// Ids are the domain's string ids, stored as `_id`.
import type {
  Account,
  AdminEvent,
  AdminRole,
  AdminToken,
  ApiKey,
  CreditHold,
  ErrorKind,
  LedgerEntry,
  LedgerKind,
  RequestErrorRecord,
  VerifyTransactionRecord,
} from '../../domain/types.js';

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

/** Read projection: the ledger id lists are bookkeeping, not account data. */
export const ACCOUNT_PROJECTION = { appliedLedger: 0, refusedLedger: 0 } as const;

export const account = (d: Omit<AccountDoc, 'appliedLedger' | 'refusedLedger'>): Account => ({
  id: d._id,
  name: d.name,
  credits: Number(d.credits),
  held: d.holds?.length ?? 0,
  usage: Number(d.usage),
  createdAt: d.createdAt,
  deletedAt: d.deletedAt ?? null,
});

export const apiKey = (d: ApiKeyDoc): ApiKey => ({
  id: d._id,
  accountId: d.accountId,
  prefix: d.prefix,
  hash: d.hash,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt ?? null,
  revokedAt: d.revokedAt ?? null,
  allowedIps: d.allowedIps ?? [],
});

export const hold = (accountId: string, h: HoldEntry): CreditHold => ({ id: h._id, accountId, keyId: h.keyId, createdAt: h.createdAt, instanceId: h.instanceId ?? null });

export const verifyTransaction = (d: VerifyTransactionDoc): VerifyTransactionRecord => ({
  id: d._id,
  accountId: d.accountId,
  keyId: d.keyId,
  requestId: d.requestId,
  qrcode: d.qrcode,
  transactionId: d.transactionId,
  amount: d.amount,
  sendingBank: d.sendingBank,
  receivingBank: d.receivingBank,
  upstream: d.upstream,
  latencyMs: d.latencyMs,
  response: d.response,
  createdAt: d.createdAt,
  ...(d.source === 'image' || d.source === 'qrcode' ? { source: d.source } : {}),
});

export const verifyTransactionDoc = (r: VerifyTransactionRecord): VerifyTransactionDoc => ({
  _id: r.id,
  accountId: r.accountId,
  keyId: r.keyId,
  requestId: r.requestId,
  qrcode: r.qrcode,
  transactionId: r.transactionId,
  amount: r.amount,
  sendingBank: r.sendingBank,
  receivingBank: r.receivingBank,
  upstream: r.upstream,
  latencyMs: r.latencyMs,
  response: r.response,
  createdAt: r.createdAt,
  ...(r.source ? { source: r.source } : {}),
});

export const requestError = (d: RequestErrorDoc): RequestErrorRecord => ({
  id: d._id,
  accountId: d.accountId ?? null,
  keyId: d.keyId ?? null,
  requestId: d.requestId,
  qrcode: d.qrcode ?? null,
  transactionId: d.transactionId ?? null,
  sendingBank: d.sendingBank ?? null,
  kind: d.kind as ErrorKind,
  message: d.message,
  upstream: d.upstream ?? null,
  latencyMs: d.latencyMs ?? null,
  createdAt: d.createdAt,
});

export const requestErrorDoc = (r: RequestErrorRecord): RequestErrorDoc => ({
  _id: r.id,
  accountId: r.accountId,
  keyId: r.keyId,
  requestId: r.requestId,
  qrcode: r.qrcode,
  transactionId: r.transactionId,
  sendingBank: r.sendingBank,
  kind: r.kind,
  message: r.message,
  upstream: r.upstream,
  latencyMs: r.latencyMs,
  createdAt: r.createdAt,
});

export const ledger = (d: LedgerDoc): LedgerEntry => ({
  id: d._id,
  accountId: d.accountId,
  kind: d.kind as LedgerKind,
  delta: Number(d.delta),
  reason: d.reason,
  actor: d.actor,
  idempotencyKey: d.idempotencyKey ?? null,
  createdAt: d.createdAt,
});

export const ledgerClaim = (e: LedgerEntry): string => (e.idempotencyKey !== null ? `key:${e.idempotencyKey}` : `id:${e.id}`);

export const ledgerDoc = (e: LedgerEntry): LedgerDoc => ({
  _id: e.id,
  accountId: e.accountId,
  kind: e.kind,
  delta: e.delta,
  reason: e.reason,
  actor: e.actor,
  idempotencyKey: e.idempotencyKey,
  claim: ledgerClaim(e),
  state: 'pending',
  appliedAt: null,
  pruned: false,
  createdAt: e.createdAt,
});

export const adminToken = (d: AdminTokenDoc): AdminToken => ({
  id: d._id,
  name: d.name,
  role: d.role as AdminRole,
  prefix: d.prefix,
  hash: d.hash,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt ?? null,
  revokedAt: d.revokedAt ?? null,
});

export const adminEvent = (d: AdminEventDoc): AdminEvent => ({
  id: d._id,
  actor: d.actor,
  action: d.action,
  targetId: d.targetId ?? null,
  reason: d.reason ?? null,
  details: d.details ?? {},
  createdAt: d.createdAt,
});
