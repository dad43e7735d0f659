// SQLite's rows: times are epoch milliseconds, JSON is text (the shapes and
// mappers are the SQL engines' shared ones, ../sql/rows.ts).
import type { LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import * as sql from '../sql/rows.js';
export { allowedIpsParam } from '../sql/rows.js';
export { usageRows } from '../usage.js';

export type AccountRow = sql.AccountRow<number>;
export type ApiKeyRow = sql.ApiKeyRow<number>;
export type ReceiverRow = sql.ReceiverRow<number>;
export type HoldRow = sql.HoldRow<number>;
export type VtRow = sql.VtRow<number, number, string>;
export type ErrorRow = sql.ErrorRow<number>;
export type LedgerRow = sql.LedgerRow<number>;
export type LineChannelRow = sql.LineChannelRow<number>;
export type AdminTokenRow = sql.AdminTokenRow<number>;
export type AdminEventRow = sql.AdminEventRow<number, string>;

export const { account, receiver, apiKey, hold, verifyTransaction, requestError, ledger, adminToken, adminEvent, lineChannel } = sql.rowMappers<number, number, string>({
  date: (ms) => new Date(ms),
  amount: (n) => n,
  json: <T>(text: string) => JSON.parse(text) as T,
});

// Named parameters of the INSERTs in sqlite-store.ts.
export const vtParams = (r: VerifyTransactionRecord) => ({
  ...r,
  response: JSON.stringify(r.response),
  createdAt: r.createdAt.getTime(),
  source: r.source ?? null,
  lineUserId: r.lineUserId ?? null,
});

export const errorParams = (r: RequestErrorRecord) => ({ ...r, createdAt: r.createdAt.getTime(), lineUserId: r.lineUserId ?? null });

export const ledgerParams = (e: LedgerEntry) => ({ ...e, createdAt: e.createdAt.getTime() });
