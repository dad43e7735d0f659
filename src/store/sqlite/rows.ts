// Row shapes of the SQLite schema and their mapping to domain types.
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
export { usageRows } from '../usage.js';

export interface AccountRow {
  id: string;
  name: string;
  credits: number;
  usage: number;
  held: number;
  created_at: number;
  deleted_at: number | null;
}
export interface ApiKeyRow {
  id: string;
  account_id: string;
  prefix: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}
export interface HoldRow {
  id: string;
  account_id: string;
  key_id: string;
  created_at: number;
}
export interface VtRow {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  qrcode: string;
  transaction_id: string;
  amount: number;
  sending_bank: string;
  receiving_bank: string;
  upstream: string;
  latency_ms: number;
  response: string;
  created_at: number;
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
  created_at: number;
}
export interface LedgerRow {
  id: string;
  account_id: string;
  kind: string;
  delta: number;
  reason: string;
  actor: string;
  idempotency_key: string | null;
  created_at: number;
}

const date = (ms: number) => new Date(ms);
const maybeDate = (ms: number | null) => (ms === null ? null : new Date(ms));

export const account = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  credits: r.credits,
  held: r.held,
  usage: r.usage,
  createdAt: date(r.created_at),
  deletedAt: maybeDate(r.deleted_at),
});

export const apiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: date(r.created_at),
  lastUsedAt: maybeDate(r.last_used_at),
  revokedAt: maybeDate(r.revoked_at),
});

export const hold = (r: HoldRow): CreditHold => ({ id: r.id, accountId: r.account_id, keyId: r.key_id, createdAt: date(r.created_at) });

export const verifyTransaction = (r: VtRow): VerifyTransactionRecord => ({
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  requestId: r.request_id,
  qrcode: r.qrcode,
  transactionId: r.transaction_id,
  amount: r.amount,
  sendingBank: r.sending_bank,
  receivingBank: r.receiving_bank,
  upstream: r.upstream,
  latencyMs: r.latency_ms,
  response: JSON.parse(r.response) as VerifyTransactionRecord['response'],
  createdAt: date(r.created_at),
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
  createdAt: date(r.created_at),
});

export const ledger = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind as LedgerKind,
  delta: r.delta,
  reason: r.reason,
  actor: r.actor,
  idempotencyKey: r.idempotency_key,
  createdAt: date(r.created_at),
});

export const vtParams = (r: VerifyTransactionRecord) => ({
  ...r,
  response: JSON.stringify(r.response),
  createdAt: r.createdAt.getTime(),
});

export const errorParams = (r: RequestErrorRecord) => ({ ...r, createdAt: r.createdAt.getTime() });

export const ledgerParams = (e: LedgerEntry) => ({ ...e, createdAt: e.createdAt.getTime() });

export interface AdminTokenRow {
  id: string;
  name: string;
  role: string;
  prefix: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}
export interface AdminEventRow {
  id: string;
  actor: string;
  action: string;
  target_id: string | null;
  reason: string | null;
  details: string;
  created_at: number;
}

export const adminToken = (r: AdminTokenRow): AdminToken => ({
  id: r.id,
  name: r.name,
  role: r.role as AdminRole,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: date(r.created_at),
  lastUsedAt: maybeDate(r.last_used_at),
  revokedAt: maybeDate(r.revoked_at),
});

export const adminEvent = (r: AdminEventRow): AdminEvent => ({
  id: r.id,
  actor: r.actor,
  action: r.action,
  targetId: r.target_id,
  reason: r.reason,
  details: JSON.parse(r.details) as Record<string, unknown>,
  createdAt: date(r.created_at),
});
