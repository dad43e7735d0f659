// Scenario H: an account that already holds a long history of verifications,
// written straight through the engine's own driver in one transaction (a
// million requests through HTTP would take longer than the whole bench), and
// the database's size on disk after it.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import type { EngineName } from './args.js';
import type { BenchDatabase } from './engines.js';

/** What one stored verification looks like: the sandbox bank's answer, as the verify path stores it. */
const RESPONSE = JSON.stringify({
  amount: 250,
  dateTime: '2026-01-01T10:00:00+07:00',
  transRef: '',
  sender: { displayName: 'นาย ทดสอบ ระบบ', name: 'MR. TEST SYSTEM', account: 'xxx-x-x1234-x', bank: { code: '004', name: 'KBANK' } },
  receiver: { displayName: 'ร้าน ตัวอย่าง', name: 'EXAMPLE SHOP', account: 'xxx-x-x5678-x', bank: { code: '014', name: 'SCB' } },
  rawData: { statusCode: '0000', transRef: '', amount: '250.00' },
});
const QR = '0041000600000101030040220013071152533APM077365102TH91048134';
const DAY_MS = 86_400_000;

/** Engines whose history H and R can write; the others are skipped with why. */
export function historySupported(engine: EngineName): string | null {
  if (engine === 'mongodb') return 'FerretDB, the MongoDB-wire test server, answers every filter by reading the whole collection whatever the indexes (see test/store/mongo-plans.test.ts)';
  return null;
}

/** Where a seeded history sits: ids start with `req_<prefix>_` (one prefix per seeding, as ids are unique); the year before `endsAt` (ms). */
export interface HistorySpan {
  prefix: string;
  endsAt: number;
}

/**
 * `rows` verifications of `accountId`, spread over the year before now (or
 * before `span.endsAt`), each of a different slip; the account's credits and
 * usage moved as if it had made them, so reconciliation still holds.
 */
export async function seedHistory(db: BenchDatabase, accountId: string, rows: number, span: HistorySpan = { prefix: 'history', endsAt: Date.now() }): Promise<void> {
  const start = span.endsAt - 365 * DAY_MS;
  const step = (365 * DAY_MS) / rows;
  const id = `req_${span.prefix}_`;
  if (db.engine === 'sqlite') {
    const lite = new Database(db.url.replace(/^sqlite:/, ''));
    try {
      const insert = lite.prepare(`INSERT INTO verify_transactions
        (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
        VALUES (?, ?, 'key_history', ?, ?, ?, 250, '004', '014', 'kbank-sim', 12, ?, ?)`);
      lite.transaction(() => {
        for (let i = 0; i < rows; i++) {
          const n = String(i).padStart(9, '0');
          insert.run(`${id}${n}`, accountId, `${id}${n}`, QR, `HIST${n}`, RESPONSE, Math.round(start + i * step));
        }
        lite.prepare('UPDATE accounts SET credits = credits - ?, usage = usage + ? WHERE id = ?').run(rows, rows, accountId);
      })();
    } finally {
      lite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: pgUrl(db) });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO verify_transactions
         (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
       SELECT $7::text || lpad(i::text, 9, '0'), $1, 'key_history', $7::text || lpad(i::text, 9, '0'), $2, 'HIST' || lpad(i::text, 9, '0'),
              250, '004', '014', 'kbank-sim', 12, $3::jsonb, to_timestamp(($4::float8 + i * $5::float8) / 1000)
       FROM generate_series(0, $6::int - 1) AS i`,
      [accountId, QR, RESPONSE, start, step, rows, id],
    );
    await client.query('UPDATE accounts SET credits = credits - $1, usage = usage + $1 WHERE id = $2', [rows, accountId]);
    await client.query('COMMIT');
    // What autovacuum does soon after a bulk load in production.
    await client.query('ANALYZE verify_transactions');
  } finally {
    await client.end();
  }
}

/** Bytes the database takes: the SQLite file and its WAL, or PostgreSQL's pg_database_size. */
export async function databaseBytes(db: BenchDatabase): Promise<number> {
  if (db.engine === 'sqlite') {
    const file = db.url.replace(/^sqlite:/, '');
    const size = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    return size(file) + size(`${file}-wal`);
  }
  const client = new pg.Client({ connectionString: pgUrl(db) });
  await client.connect();
  try {
    return Number((await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')).rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

/** The bench's URL without slipgate's own query parameters (pool_max), which pg would pass on to the server. */
export function pgUrl(db: BenchDatabase): string {
  const url = new URL(db.url);
  url.search = '';
  return url.toString();
}

/**
 * The duplicate check's lookup alone, through the store as the verify path
 * calls it (a slip the account never verified): milliseconds per lookup,
 * the median of blocks taken in turns for each account, so load on the
 * machine falls on both alike.
 */
export async function lookupMs(db: BenchDatabase, accountIds: string[], blocks = 7, perBlock = 200): Promise<number[]> {
  const store = await openStore(db.url);
  try {
    const samples = accountIds.map(() => [] as number[]);
    let n = 0;
    for (let b = 0; b < blocks; b++) {
      for (const [i, accountId] of accountIds.entries()) {
        const started = performance.now();
        for (let k = 0; k < perBlock; k++) {
          await store.listVerifyTransactions({ accountId, transactionId: `NEVER${String(n++).padStart(9, '0')}`, sendingBank: '004', limit: 100 });
        }
        samples[i]!.push((performance.now() - started) / perBlock);
      }
    }
    return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]!);
  } finally {
    await store.close();
  }
}
