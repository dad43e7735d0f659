// LINE payment matching against an account's history (#44): the time to
// match one slip (domain/line/payment-match.ts, through the store as the LINE
// bridge calls it) for an account holding `--history` past requests (paid
// and expired, default 200,000) beside a handful of pending ones, against an
// account holding only the handful; and, for comparison, the read the
// matcher made before (the account's requests filtered by status) on the
// schema before (without the index of pending requests, dropped for it). Not a load scenario: one process, the store
// in-process, blocks of matches taken in turns for each account so load on
// the machine falls on both alike. SQLite and PostgreSQL (FerretDB, the
// MongoDB-wire stand-in, reads a whole collection per filter).
//
//   npx tsx scripts/bench/line-match.ts [--history 200000] [--engine sqlite,postgres]
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PendingRequestMatcher } from '../../src/domain/line/payment-match.js';
import type { Store } from '../../src/domain/ports/store.js';
import { PaymentRequestService } from '../../src/domain/payments/service.js';
import type { VerifiedSlip } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { createDatabase, type BenchDatabase } from './engines.js';
import { pgUrl } from './history.js';

const PENDING = 5;
const BLOCKS = 7;
const PER_BLOCK = 50;
const MINUTE = 60_000;
const TARGET = { kind: 'promptpay', bank: null, number: '0812345678', proxy: 'MSISDN', nameTh: 'ร้านกาแฟ ดีดี', nameEn: 'DEEDEE COFFEE' } as const;

/** 102 baht to the shop's PromptPay, as a bank masks it: one pending request of each account has that amount. */
const SLIP: VerifiedSlip = {
  amount: 102,
  dateTime: '2026-11-28T10:00:00+07:00',
  timestamp: Math.floor(Date.now() / 1000),
  transactionId: '016332100000BENCH0001',
  senderBankAccountNumber: 'xxx-x-x1234-x',
  senderName: 'นาย ทดสอบ ระบบ',
  senderNameEN: 'MR. TEST SYSTEM',
  senderBank: 'KBANK',
  senderBankCode: '004',
  receiverBankAccountNumber: '',
  receiverName: 'ร้านกาแฟ ดีดี',
  receiverNameEN: 'DEEDEE COFFEE',
  receiverBank: '',
  receiverBankCode: '',
  receiverPromptpay: 'xxx-xxx-5678',
  receiverProxyType: 'MSISDN',
  rawData: {},
};

const { values } = parseArgs({ options: { history: { type: 'string', default: '200000' }, engine: { type: 'string', default: 'sqlite,postgres' } } });
const history = Number(values.history);
if (!Number.isSafeInteger(history) || history < 0) throw new Error('--history must be a whole number');
const engines = values.engine!.split(',') as ('sqlite' | 'postgres')[];

/** `rows` closed requests of the account (paid and expired by turns), one a minute up to an hour ago, each with its target. */
async function seedPast(db: BenchDatabase, accountId: string, receiverId: string, rows: number): Promise<void> {
  const end = Date.now() - 60 * MINUTE;
  if (db.engine === 'sqlite') {
    const lite = new Database(db.url.replace(/^sqlite:/, ''));
    try {
      const insert = lite.prepare(`INSERT INTO payment_requests
        (id, account_id, receiver_id, target_kind, target_bank_code, target_number, target_proxy_type, target_name_th, target_name_en,
         reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, closed_at, paid_at, paid_verification_id, paid_transaction_id, paid_sending_bank, paid_amount, paid_transferred_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'qr', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      lite.transaction(() => {
        for (let i = 0; i < rows; i++) {
          const at = end - (rows - i) * MINUTE;
          const paid = i % 2 === 0;
          const amount = 10_000 + (i % 500);
          insert.run(
            `pr_past_${i}`, accountId, receiverId, TARGET.kind, TARGET.bank, TARGET.number, TARGET.proxy, TARGET.nameTh, TARGET.nameEn,
            `past-${i}`, amount, amount, paid ? 'paid' : 'expired', at, at + 30 * MINUTE, paid ? null : at + 30 * MINUTE,
            paid ? at + MINUTE : null, paid ? `vt_past_${i}` : null, paid ? `PAST${i}` : null, paid ? '004' : null, paid ? amount : null, paid ? at + MINUTE : null,
          );
        }
      })();
    } finally {
      lite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: pgUrl(db) });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO payment_requests
         (id, account_id, receiver_id, target_kind, target_bank_code, target_number, target_proxy_type, target_name_th, target_name_en,
          reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, closed_at, paid_at, paid_verification_id, paid_transaction_id, paid_sending_bank, paid_amount, paid_transferred_at)
       SELECT 'pr_past_' || i, $1, $2, $3, NULL, $4, $5, $6, $7, 'past-' || i, 10000 + i % 500, 10000 + i % 500, false, 'qr',
              CASE WHEN i % 2 = 0 THEN 'paid' ELSE 'expired' END, t, t + interval '30 minutes', CASE WHEN i % 2 = 0 THEN NULL ELSE t + interval '30 minutes' END,
              CASE WHEN i % 2 = 0 THEN t + interval '1 minute' END, CASE WHEN i % 2 = 0 THEN 'vt_past_' || i END, CASE WHEN i % 2 = 0 THEN 'PAST' || i END,
              CASE WHEN i % 2 = 0 THEN '004' END, CASE WHEN i % 2 = 0 THEN 10000 + i % 500 END, CASE WHEN i % 2 = 0 THEN t + interval '1 minute' END
       FROM generate_series(0, $8::int - 1) AS i, LATERAL (SELECT to_timestamp(($9::float8 - ($8::int - i)::float8 * 60000) / 1000) AS t) AS times`,
      [accountId, receiverId, TARGET.kind, TARGET.number, TARGET.proxy, TARGET.nameTh, TARGET.nameEn, rows, end],
    );
    // What autovacuum does soon after a bulk load in production.
    await client.query('ANALYZE payment_requests');
  } finally {
    await client.end();
  }
}

/** An account with the shop's receiver and PENDING open orders of 100–104 baht. */
async function shop(store: Store, name: string): Promise<{ accountId: string; receiverId: string }> {
  const accountId = `acc_${name}`;
  await store.createAccount({ id: accountId, name, createdAt: new Date() });
  const receiverId = `rcv_${name}`;
  await store.createReceiver({
    id: receiverId, accountId, kind: TARGET.kind, bankCode: TARGET.bank, number: TARGET.number, proxyType: TARGET.proxy,
    nameTh: TARGET.nameTh, nameEn: TARGET.nameEn, label: null, active: true, createdAt: new Date(),
  });
  const payments = new PaymentRequestService(store);
  for (let i = 0; i < PENDING; i++) await payments.create(accountId, { amount: 10_000 + i * 100, reference: `open-${i}`, expiresInMinutes: 120 });
  return { accountId, receiverId };
}

/** The schema before #44's index of pending requests, for the old read's time. */
async function dropPendingIndex(db: BenchDatabase): Promise<void> {
  if (db.engine === 'sqlite') {
    const lite = new Database(db.url.replace(/^sqlite:/, ''));
    lite.exec('DROP INDEX payment_requests_pending');
    lite.close();
    return;
  }
  const client = new pg.Client({ connectionString: pgUrl(db) });
  await client.connect();
  await client.query('DROP INDEX payment_requests_pending');
  await client.end();
}

/** Milliseconds per call: the median of BLOCKS blocks, the accounts taking turns. */
async function timed(accounts: string[], call: (accountId: string) => Promise<unknown>): Promise<number[]> {
  for (const a of accounts) for (let i = 0; i < 10; i++) await call(a);
  const blocks: number[][] = accounts.map(() => []);
  for (let b = 0; b < BLOCKS; b++) {
    for (const [k, a] of accounts.entries()) {
      const start = performance.now();
      for (let i = 0; i < PER_BLOCK; i++) await call(a);
      blocks[k]!.push((performance.now() - start) / PER_BLOCK);
    }
  }
  return blocks.map((ms) => ms.sort((x, y) => x - y)[Math.floor(ms.length / 2)]!);
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
const workDir = mkdtempSync(join(tmpdir(), 'slipgate-line-match-'));
console.log(`LINE payment matching, commit ${commit}${dirty ? ' (uncommitted changes)' : ''}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`);
console.log(`| engine | account | match | before: the matcher's old read, without the pending index |`);
console.log(`|---|---|---|---|`);
try {
  for (const engine of engines) {
    const setup = await createDatabase(engine, workDir, process.cwd());
    if (!setup.ok) {
      console.log(`| ${engine} | skipped: ${setup.reason} | | |`);
      continue;
    }
    const db = setup.db;
    try {
      let store = await openStore(db.url);
      await store.migrate();
      const busy = await shop(store, 'busy');
      const quiet = await shop(store, 'quiet');
      await store.close();
      await seedPast(db, busy.accountId, busy.receiverId, history);
      store = await openStore(db.url);
      const matcher = new PendingRequestMatcher(store);
      const found = await matcher.match(busy.accountId, SLIP);
      if (found.kind !== 'one' || found.request.reference !== 'open-2') throw new Error(`the slip should match open-2, got ${JSON.stringify(found)}`);
      const [busyMs, quietMs] = await timed([busy.accountId, quiet.accountId], (a) => matcher.match(a, SLIP));
      await dropPendingIndex(db);
      const [busyOld, quietOld] = await timed([busy.accountId, quiet.accountId], (a) => store.listPaymentRequests({ accountId: a, status: 'pending', limit: 200 }));
      console.log(`| ${engine} | ${history.toLocaleString('en')} past + ${PENDING} pending | ${fmt(busyMs!)} | ${fmt(busyOld!)} |`);
      console.log(`| ${engine} | ${PENDING} pending only | ${fmt(quietMs!)} | ${fmt(quietOld!)} |`);
      await store.close();
    } finally {
      await db.drop();
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
