// PostgreSQL's rows: node-postgres returns timestamptz as Date and jsonb as
// objects; numeric comes back as a string (it may not fit a double), so
// amounts are converted (the shapes and mappers are the SQL engines' shared
// ones, ../sql/rows.ts).
import type { AdminEvent, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import * as sql from '../sql/rows.js';
export { allowedIpsParam } from '../sql/rows.js';

export type AccountRow = sql.AccountRow<Date>;
export type ApiKeyRow = sql.ApiKeyRow<Date>;
export type ReceiverRow = sql.ReceiverRow<Date>;
export type HoldRow = sql.HoldRow<Date>;
export type VtRow = sql.VtRow<Date, string, VerifyTransactionRecord['response']>;
export type ErrorRow = sql.ErrorRow<Date>;
export type LedgerRow = sql.LedgerRow<Date>;
export type LineChannelRow = sql.LineChannelRow<Date>;
export type AdminTokenRow = sql.AdminTokenRow<Date>;
export type AdminEventRow = sql.AdminEventRow<Date, unknown>;

export const { account, receiver, apiKey, hold, verifyTransaction, requestError, ledger, adminToken, adminEvent, lineChannel } = sql.rowMappers<Date, string, unknown>({
  date: (d) => d,
  amount: (numeric) => Number(numeric),
  json: <T>(parsed: unknown) => parsed as T,
});

// Positional parameters in column order of the INSERTs (holds.ts, settle-batch.ts, recovery.ts).

export const VT_COLUMNS =
  'id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, source, line_user_id';
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
  r.source ?? null,
  r.lineUserId ?? null,
];

const ERROR_COLUMNS = 'id, account_id, key_id, request_id, qrcode, kind, message, upstream, latency_ms, created_at, transaction_id, sending_bank, line_user_id';
/**
 * The one INSERT of a failure record (errorParams' order), alone or inside a
 * release. An id stored before is left as it is: a retried write records once.
 */
export const INSERT_ERROR = `INSERT INTO request_errors (${ERROR_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING`;
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
  r.lineUserId ?? null,
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

export const adminEventParams = (e: AdminEvent): unknown[] => [e.id, e.actor, e.action, e.targetId, e.reason, jsonb(e.details), e.createdAt];
