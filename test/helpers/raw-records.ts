// The audit records as each engine's own driver sees them (better-sqlite3,
// pg, the MongoDB driver), bypassing slipgate's store: retention tests read
// what is really left of a record after redaction, and what was deleted.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import pg from 'pg';
import type { Recheck } from '../../src/domain/rechecks/types.js';
import type { RecheckRow } from '../../src/store/sql/rechecks.js';

export interface RawVerifyTransaction {
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  transactionId: string;
  sendingBank: string;
  receivingBank: string;
  upstream: string;
  latencyMs: number;
  amount: number;
  qrcode: string;
  /** The stored `data` (names, accounts, rawData…), parsed. */
  response: Record<string, unknown>;
  createdAt: Date;
  redactedAt: Date | null;
}

/**
 * A re-check as stored: every column or field, camelCase (the domain's names;
 * the outcome as whatever text is there); `redactedAt` null until a
 * redaction sets it.
 */
export type RawRecheck = Omit<Recheck, 'outcome'> & { outcome: string | null; redactedAt: Date | null };

export interface RawRecords {
  /** Every verification record, by id. */
  verifyTransactions(): Promise<RawVerifyTransaction[]>;
  /** Every re-check, by id. */
  rechecks(): Promise<RawRecheck[]>;
  /** Ids of every failed-request record, sorted. */
  requestErrorIds(): Promise<string[]>;
  /** Rows of the tables retention must never touch, as stored (ledger, admin events, accounts). */
  untouchable(): Promise<string>;
  /** Writes: the lease expired long ago. */
  expireLease(instanceId: string): Promise<void>;
  /** Writes: moves a record's time back (a slip verified long ago). */
  setVerifyTransactionTime(id: string, createdAt: Date): Promise<void>;
  close(): Promise<void>;
}

export async function openRawRecords(databaseUrl: string): Promise<RawRecords> {
  if (databaseUrl.startsWith('sqlite:')) return sqliteRecords(databaseUrl.slice('sqlite:'.length));
  if (databaseUrl.startsWith('postgres')) return postgresRecords(databaseUrl);
  return mongoRecords(databaseUrl);
}

interface SqlVt {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  transaction_id: string;
  sending_bank: string;
  receiving_bank: string;
  upstream: string;
  latency_ms: number;
  amount: number | string;
  qrcode: string;
  response: string | Record<string, unknown>;
  created_at: number | Date;
  redacted_at: number | Date | null;
}

function fromSql(r: SqlVt): RawVerifyTransaction {
  const date = (v: number | Date) => (v instanceof Date ? v : new Date(v));
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    requestId: r.request_id,
    transactionId: r.transaction_id,
    sendingBank: r.sending_bank,
    receivingBank: r.receiving_bank,
    upstream: r.upstream,
    latencyMs: r.latency_ms,
    amount: Number(r.amount),
    qrcode: r.qrcode,
    response: typeof r.response === 'string' ? (JSON.parse(r.response) as Record<string, unknown>) : r.response,
    createdAt: date(r.created_at),
    redactedAt: r.redacted_at === null ? null : date(r.redacted_at),
  };
}

/** A re-check row as either SQL engine returns it; `redacted_at` is absent before the migration that added it. */
type SqlRecheck = RecheckRow<number | Date> & { redacted_at?: number | Date | null };

function recheckFromSql(r: SqlRecheck): RawRecheck {
  const date = (v: number | Date) => (v instanceof Date ? v : new Date(v));
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    requestId: r.request_id,
    paymentRequestId: r.payment_request_id,
    qrcode: r.qrcode,
    sendingBank: r.sending_bank,
    transRef: r.trans_ref,
    options: r.options,
    createdAt: date(r.created_at),
    deadline: date(r.deadline),
    nextAttemptAt: date(r.next_attempt_at),
    attempts: Number(r.attempts),
    attemptId: r.attempt_id,
    outcome: r.outcome,
    finishedAt: r.finished_at === null ? null : date(r.finished_at),
    result: r.result,
    lineChannelId: r.line_channel_id,
    lineUserId: r.line_user_id,
    redactedAt: r.redacted_at === null || r.redacted_at === undefined ? null : date(r.redacted_at),
  };
}

function sqliteRecords(file: string): RawRecords {
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  const all = <T>(sql: string) => db.prepare(sql).all() as T[];
  return {
    verifyTransactions: async () => all<SqlVt>('SELECT * FROM verify_transactions ORDER BY id').map(fromSql),
    rechecks: async () => all<SqlRecheck>('SELECT * FROM rechecks ORDER BY id').map(recheckFromSql),
    requestErrorIds: async () => all<{ id: string }>('SELECT id FROM request_errors ORDER BY id').map((r) => r.id),
    untouchable: async () =>
      JSON.stringify([all('SELECT * FROM credit_ledger ORDER BY id'), all('SELECT * FROM admin_events ORDER BY id'), all('SELECT * FROM accounts ORDER BY id')]),
    expireLease: async (id) => void db.prepare('UPDATE instance_leases SET expires_at = 0 WHERE id = ?').run(id),
    setVerifyTransactionTime: async (id, at) => void db.prepare('UPDATE verify_transactions SET created_at = ? WHERE id = ?').run(at.getTime(), id),
    close: async () => void db.close(),
  };
}

async function postgresRecords(url: string): Promise<RawRecords> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  const all = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows;
  return {
    verifyTransactions: async () => (await all<SqlVt>('SELECT * FROM verify_transactions ORDER BY id')).map(fromSql),
    rechecks: async () => (await all<SqlRecheck>('SELECT * FROM rechecks ORDER BY id')).map(recheckFromSql),
    requestErrorIds: async () => (await all<{ id: string }>('SELECT id FROM request_errors ORDER BY id')).map((r) => r.id),
    untouchable: async () =>
      JSON.stringify([
        await all('SELECT * FROM credit_ledger ORDER BY id'),
        await all('SELECT * FROM admin_events ORDER BY id'),
        await all('SELECT * FROM accounts ORDER BY id'),
      ]),
    expireLease: async (id) => void (await all(`UPDATE instance_leases SET expires_at = clock_timestamp() - interval '1 hour' WHERE id = $1`, [id])),
    setVerifyTransactionTime: async (id, at) => void (await all('UPDATE verify_transactions SET created_at = $1 WHERE id = $2', [at, id])),
    close: () => client.end(),
  };
}

/** The same record as MongoDB stores it: `_id`, and no `redactedAt` until a redaction sets it. */
type MongoVt = Omit<RawVerifyTransaction, 'id' | 'redactedAt'> & { _id: string; redactedAt?: Date | null };

/** The same for a re-check: `_id`, and no `redactedAt` until a redaction sets it. */
type MongoRecheck = Omit<RawRecheck, 'id' | 'redactedAt'> & { _id: string; redactedAt?: Date | null };

async function mongoRecords(url: string): Promise<RawRecords> {
  const client = new mongoose.mongo.MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  const db = client.db();
  const byId = { _id: 1 } as const;
  return {
    verifyTransactions: async () =>
      (await db.collection<MongoVt>('verify_transactions').find({}).sort(byId).toArray()).map(({ _id, redactedAt, ...rest }) => ({ id: _id, ...rest, redactedAt: redactedAt ?? null })),
    rechecks: async () =>
      (await db.collection<MongoRecheck>('rechecks').find({}).sort(byId).toArray()).map(({ _id, redactedAt, ...rest }) => ({ id: _id, ...rest, redactedAt: redactedAt ?? null })),
    requestErrorIds: async () => (await db.collection<{ _id: string }>('request_errors').find({}).sort(byId).toArray()).map((r) => r._id),
    untouchable: async () =>
      JSON.stringify(await Promise.all(['credit_ledger', 'admin_events', 'accounts'].map((name) => db.collection(name).find({}).sort(byId).toArray()))),
    expireLease: async (id) => void (await db.collection<{ _id: string }>('instance_leases').updateOne({ _id: id }, { $set: { expiresAt: new Date(0) } })),
    setVerifyTransactionTime: async (id, at) => void (await db.collection<{ _id: string }>('verify_transactions').updateOne({ _id: id }, { $set: { createdAt: at } })),
    close: () => client.close(),
  };
}
