// The books as each engine's own driver sees them (better-sqlite3, pg, the
// MongoDB driver), bypassing slipgate's store: tests read the truth and
// corrupt it the way a bad migration, a manual fix or a bug would.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import pg from 'pg';

export interface RawBooks {
  readonly engine: 'sqlite' | 'postgres' | 'mongo';
  /** Ids of the account's holds, as stored. */
  holdIds(accountId: string): Promise<string[]>;
  /** The account's usage counter, as stored. */
  usage(accountId: string): Promise<number>;
  /**
   * Hold ids and usage from one snapshot, so a settle committing meanwhile
   * cannot be counted both as a hold and as a charge: PostgreSQL reads both in
   * one REPEATABLE READ transaction, SQLite in one read transaction, MongoDB
   * from the account document alone (holds are embedded in it; a
   * single-document read is atomic).
   */
  holdsAndUsage(accountId: string): Promise<{ holdIds: string[]; usage: number }>;
  /** Changes credits with no ledger entry. */
  addCredits(accountId: string, delta: number): Promise<void>;
  /** Sets credits below zero, lifting the engine's own guard (check constraint) first where there is one. */
  setNegativeCredits(accountId: string, credits: number): Promise<void>;
  /** The request id of each of the account's VerifyTransaction records (sorted): who was charged. */
  verifiedRequestIds(accountId: string): Promise<string[]>;
  /** Deletes the account's VerifyTransaction records, leaving usage as it is. */
  deleteVerifyTransactions(accountId: string): Promise<number>;
  /** A hold taken at `createdAt` whose credit left `credits`: the sums still agree. */
  insertHold(accountId: string, keyId: string, createdAt: Date): Promise<string>;
  /** A ledger entry the balance never received. */
  insertLedgerEntry(accountId: string, delta: number): Promise<void>;
  close(): Promise<void>;
}

export async function openRawBooks(databaseUrl: string): Promise<RawBooks> {
  if (databaseUrl.startsWith('sqlite:')) return sqliteBooks(databaseUrl.slice('sqlite:'.length));
  if (databaseUrl.startsWith('postgres')) return postgresBooks(databaseUrl);
  return mongoBooks(databaseUrl);
}

const newId = (kind: string) => `${kind}_raw${randomUUID().replaceAll('-', '')}`;

function sqliteBooks(file: string): RawBooks {
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  return {
    engine: 'sqlite',
    holdIds: async (accountId) => (db.prepare('SELECT id FROM credit_holds WHERE account_id = ? ORDER BY created_at').all(accountId) as { id: string }[]).map((r) => r.id),
    usage: async (accountId) => (db.prepare('SELECT usage FROM accounts WHERE id = ?').get(accountId) as { usage: number }).usage,
    // A deferred transaction that only reads: in WAL mode its first read fixes the snapshot both reads see.
    holdsAndUsage: async (accountId) =>
      db.transaction(() => ({
        holdIds: (db.prepare('SELECT id FROM credit_holds WHERE account_id = ? ORDER BY created_at').all(accountId) as { id: string }[]).map((r) => r.id),
        usage: (db.prepare('SELECT usage FROM accounts WHERE id = ?').get(accountId) as { usage: number }).usage,
      }))(),
    async addCredits(accountId, delta) {
      db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ?').run(delta, accountId);
    },
    async setNegativeCredits(accountId, credits) {
      db.pragma('ignore_check_constraints = ON');
      try {
        db.prepare('UPDATE accounts SET credits = ? WHERE id = ?').run(credits, accountId);
      } finally {
        db.pragma('ignore_check_constraints = OFF');
      }
    },
    verifiedRequestIds: async (accountId) =>
      (db.prepare('SELECT request_id FROM verify_transactions WHERE account_id = ?').all(accountId) as { request_id: string }[]).map((r) => r.request_id).sort(),
    deleteVerifyTransactions: async (accountId) => db.prepare('DELETE FROM verify_transactions WHERE account_id = ?').run(accountId).changes,
    async insertHold(accountId, keyId, createdAt) {
      const id = newId('vfy');
      db.transaction(() => {
        db.prepare('INSERT INTO credit_holds (id, account_id, key_id, created_at) VALUES (?, ?, ?, ?)').run(id, accountId, keyId, createdAt.getTime());
        db.prepare('UPDATE accounts SET credits = credits - 1 WHERE id = ?').run(accountId);
      })();
      return id;
    },
    async insertLedgerEntry(accountId, delta) {
      db.prepare("INSERT INTO credit_ledger (id, account_id, kind, delta, reason, actor, created_at) VALUES (?, ?, 'top_up', ?, 'raw insert', 'test', ?)").run(
        newId('led'),
        accountId,
        delta,
        Date.now(),
      );
    },
    close: async () => void db.close(),
  };
}

async function postgresBooks(url: string): Promise<RawBooks> {
  const client = new pg.Client({ connectionString: url });
  // Test databases are dropped WITH (FORCE); that is not a failure.
  client.on('error', () => {});
  await client.connect();
  return {
    engine: 'postgres',
    holdIds: async (accountId) => (await client.query<{ id: string }>('SELECT id FROM credit_holds WHERE account_id = $1 ORDER BY created_at', [accountId])).rows.map((r) => r.id),
    usage: async (accountId) => (await client.query<{ usage: number }>('SELECT usage FROM accounts WHERE id = $1', [accountId])).rows[0]!.usage,
    async holdsAndUsage(accountId) {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const holds = await client.query<{ id: string }>('SELECT id FROM credit_holds WHERE account_id = $1 ORDER BY created_at', [accountId]);
        const usage = await client.query<{ usage: number }>('SELECT usage FROM accounts WHERE id = $1', [accountId]);
        return { holdIds: holds.rows.map((r) => r.id), usage: usage.rows[0]!.usage };
      } finally {
        await client.query('COMMIT');
      }
    },
    async addCredits(accountId, delta) {
      await client.query('UPDATE accounts SET credits = credits + $1 WHERE id = $2', [delta, accountId]);
    },
    async setNegativeCredits(accountId, credits) {
      await client.query('ALTER TABLE accounts DROP CONSTRAINT IF EXISTS accounts_credits_check');
      await client.query('UPDATE accounts SET credits = $1 WHERE id = $2', [credits, accountId]);
    },
    verifiedRequestIds: async (accountId) =>
      (await client.query<{ request_id: string }>('SELECT request_id FROM verify_transactions WHERE account_id = $1', [accountId])).rows.map((r) => r.request_id).sort(),
    deleteVerifyTransactions: async (accountId) => (await client.query('DELETE FROM verify_transactions WHERE account_id = $1', [accountId])).rowCount ?? 0,
    async insertHold(accountId, keyId, createdAt) {
      const id = newId('vfy');
      await client.query(
        `WITH hold AS (INSERT INTO credit_holds (id, account_id, key_id, created_at) VALUES ($1, $2, $3, $4))
         UPDATE accounts SET credits = credits - 1 WHERE id = $2`,
        [id, accountId, keyId, createdAt],
      );
      return id;
    },
    async insertLedgerEntry(accountId, delta) {
      await client.query("INSERT INTO credit_ledger (id, account_id, kind, delta, reason, actor, created_at) VALUES ($1, $2, 'top_up', $3, 'raw insert', 'test', now())", [
        newId('led'),
        accountId,
        delta,
      ]);
    },
    close: () => client.end(),
  };
}

interface RawAccount {
  _id: string;
  credits: number;
  usage: number;
  holds: { _id: string; keyId: string; createdAt: Date }[];
}

async function mongoBooks(url: string): Promise<RawBooks> {
  const client = new mongoose.mongo.MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  const db = client.db();
  const accounts = db.collection<RawAccount>('accounts');
  return {
    engine: 'mongo',
    holdIds: async (accountId) => ((await accounts.findOne({ _id: accountId }))?.holds ?? []).map((h) => h._id),
    usage: async (accountId) => (await accounts.findOne({ _id: accountId }))!.usage,
    async holdsAndUsage(accountId) {
      const account = (await accounts.findOne({ _id: accountId }))!;
      return { holdIds: (account.holds ?? []).map((h) => h._id), usage: account.usage };
    },
    async addCredits(accountId, delta) {
      await accounts.updateOne({ _id: accountId }, { $inc: { credits: delta } });
    },
    async setNegativeCredits(accountId, credits) {
      // No guard to lift: MongoDB keeps no constraint on the field.
      await accounts.updateOne({ _id: accountId }, { $set: { credits } });
    },
    verifiedRequestIds: async (accountId) =>
      (await db.collection<{ requestId: string }>('verify_transactions').find({ accountId }).toArray()).map((r) => r.requestId).sort(),
    deleteVerifyTransactions: async (accountId) => (await db.collection('verify_transactions').deleteMany({ accountId })).deletedCount,
    async insertHold(accountId, keyId, createdAt) {
      const id = newId('vfy');
      await accounts.updateOne({ _id: accountId }, { $inc: { credits: -1 }, $push: { holds: { _id: id, keyId, createdAt } } });
      return id;
    },
    async insertLedgerEntry(accountId, delta) {
      const id = newId('led');
      await db.collection<{ _id: string; [field: string]: unknown }>('credit_ledger').insertOne({
        _id: id,
        accountId,
        kind: 'top_up',
        delta,
        reason: 'raw insert',
        actor: 'test',
        idempotencyKey: null,
        claim: `id:${id}`,
        state: 'applied',
        appliedAt: new Date(),
        pruned: false,
        createdAt: new Date(),
      });
    },
    close: () => client.close(),
  };
}
