// Storage port: the money ledger and the records audits and usage read.
import type { Account, ErrorKind, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../types.js';
import type { Page } from './store-page.js';

export interface AuditQuery {
  accountId?: string;
  /** The record's own id (a verification's `req_…`). */
  id?: string;
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

export interface UsageRow {
  accountId: string;
  /** Day in Asia/Bangkok, YYYY-MM-DD. */
  day: string;
  successes: number;
  failures: Partial<Record<ErrorKind, number>>;
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

export interface LedgerResult {
  entry: LedgerEntry;
  /** False when the idempotency key had already been used. */
  created: boolean;
  account: Account;
}

export interface RecordsStore {
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

  listVerifyTransactions(query: AuditQuery): Promise<Page<VerifyTransactionRecord>>;
  listRequestErrors(query: AuditQuery): Promise<Page<RequestErrorRecord>>;
  /** Per account and Bangkok day; successes and failures by kind. */
  usage(query: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]>;
}
