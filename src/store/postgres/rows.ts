// Row shapes of the PostgreSQL schema and their mapping to domain types.
// node-postgres already returns timestamptz as Date and jsonb as objects;
// numeric comes back as a string (it may not fit a double), so amounts are
// converted here.
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

export interface AccountRow {
  id: string;
  name: string;
  credits: number;
  usage: number;
  held: number;
  created_at: Date;
  deleted_at: Date | null;
}
export interface ApiKeyRow {
  id: string;
  account_id: string;
  prefix: string;
  hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}
export interface HoldRow {
  id: string;
  account_id: string;
  key_id: string;
  created_at: Date;
}
export interface VtRow {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  qrcode: string;
  transaction_id: string;
  amount: string;
  sending_bank: string;
  receiving_bank: string;
  upstream: string;
  latency_ms: number;
  response: VerifyTransactionRecord['response'];
  created_at: Date;
}
export interface ErrorRow {
  id: string;
  account_id: string | null;
  key_id: string | null;
  request_id: string;
  qrcode: string | null;
  transaction_id: string | null;
  sending_bank: string | null;
  kind: string;
  message: string;
  upstream: string | null;
  latency_ms: number | null;
  created_at: Date;
}
export interface LedgerRow {
  id: string;
  account_id: string;
  kind: string;
  delta: number;
  reason: string;
  actor: string;
  idempotency_key: string | null;
  created_at: Date;
}

export const account = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  credits: r.credits,
  held: r.held,
  usage: r.usage,
  createdAt: r.created_at,
  deletedAt: r.deleted_at,
});

export const apiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export const hold = (r: HoldRow): CreditHold => ({ id: r.id, accountId: r.account_id, keyId: r.key_id, createdAt: r.created_at });

export const verifyTransaction = (r: VtRow): VerifyTransactionRecord => ({
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  requestId: r.request_id,
  qrcode: r.qrcode,
  transactionId: r.transaction_id,
  amount: Number(r.amount),
  sendingBank: r.sending_bank,
  receivingBank: r.receiving_bank,
  upstream: r.upstream,
  latencyMs: r.latency_ms,
  response: r.response,
  createdAt: r.created_at,
});

export const requestError = (r: ErrorRow): RequestErrorRecord => ({
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  requestId: r.request_id,
  qrcode: r.qrcode,
  transactionId: r.transaction_id,
  sendingBank: r.sending_bank,
  kind: r.kind as ErrorKind,
  message: r.message,
  upstream: r.upstream,
  latencyMs: r.latency_ms,
  createdAt: r.created_at,
});

export const ledger = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind as LedgerKind,
  delta: r.delta,
  reason: r.reason,
  actor: r.actor,
  idempotencyKey: r.idempotency_key,
  createdAt: r.created_at,
});

// Positional parameters in column order of the INSERTs in postgres-store.ts.

export const VT_COLUMNS =
  'id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at';
export const vtParams = (r: VerifyTransactionRecord): unknown[] => [
  r.id,
  r.accountId,
  r.keyId,
  r.requestId,
  r.qrcode,
  r.transactionId,
  r.amount,
  r.sendingBank,
  r.receivingBank,
  r.upstream,
  r.latencyMs,
  jsonb(r.response),
  r.createdAt,
];

export const ERROR_COLUMNS = 'id, account_id, key_id, request_id, qrcode, kind, message, upstream, latency_ms, created_at, transaction_id, sending_bank';
export const errorParams = (r: RequestErrorRecord): unknown[] => [
  r.id,
  r.accountId,
  r.keyId,
  r.requestId,
  r.qrcode,
  r.kind,
  r.message,
  r.upstream,
  r.latencyMs,
  r.createdAt,
  r.transactionId,
  r.sendingBank,
];

export const LEDGER_COLUMNS = 'id, account_id, kind, delta, reason, actor, idempotency_key, created_at';
export const ledgerParams = (e: LedgerEntry): unknown[] => [e.id, e.accountId, e.kind, e.delta, e.reason, e.actor, e.idempotencyKey, e.createdAt];

/**
 * PostgreSQL text and jsonb cannot hold U+0000, which a client can put in a
 * qrcode or an upstream in a payload. Storing U+FFFD instead keeps the audit
 * record instead of failing the request.
 */
export const noNul = (s: string): string => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);

/** JSON for a jsonb parameter (stringified here: pg would send arrays as PG arrays). */
function jsonb(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? noNul(v) : v));
}

export interface AdminTokenRow {
  id: string;
  name: string;
  role: string;
  prefix: string;
  hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}
export interface AdminEventRow {
  id: string;
  actor: string;
  action: string;
  target_id: string | null;
  reason: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export const adminToken = (r: AdminTokenRow): AdminToken => ({
  id: r.id,
  name: r.name,
  role: r.role as AdminRole,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export const adminEvent = (r: AdminEventRow): AdminEvent => ({
  id: r.id,
  actor: r.actor,
  action: r.action,
  targetId: r.target_id,
  reason: r.reason,
  details: r.details,
  createdAt: r.created_at,
});

export const adminEventParams = (e: AdminEvent): unknown[] => [e.id, e.actor, e.action, e.targetId, e.reason, jsonb(e.details), e.createdAt];
