// MongoDB's plans for the lookups of query-plans.ts, built by the store's own
// filter code. A real MongoDB (MONGODB_URI) is asked through explain(): the
// winning plan must be an IXSCAN on an index that serves the lookup, with no
// COLLSCAN and no in-memory SORT. FerretDB, the default test server, cannot
// say: its explain() reports its backend's SQL plan, a scan of the whole
// collection whatever the indexes (it pushes no filter down to them). There
// the test checks, through the raw driver, that the index made for each lookup
// exists and serves it by MongoDB's rule: equality fields first, then the
// sort order, so a real server can answer it without reading more.
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditFilter, NEWEST_FIRST, type Filter } from '../../src/store/mongo/filters.js';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { PENDING_ORDER } from '../../src/store/mongo/payments.js';
import { finishedFilter, passFilter } from '../../src/store/mongo/retention.js';
import { createMongoDatabase, type TestMongoDatabase } from '../helpers/mongo.js';
import { PLANNED_LOOKUPS, PLANNED_USAGE, seedRows, type IndexRole, type SeedRow } from './query-plans.js';

type Key = Record<string, 1 | -1>;

const INDEX_OF: Record<IndexRole, Key> = {
  duplicate: { accountId: 1, transactionId: 1, sendingBank: 1, createdAt: -1, _id: -1 },
  account_time: { accountId: 1, createdAt: -1, _id: -1 },
  time: { createdAt: -1, _id: -1 },
  transaction_time: { transactionId: 1, createdAt: -1, _id: -1 },
  request_time: { requestId: 1, createdAt: -1, _id: -1 },
};
const COLLECTION = { verify_transactions: 'verify_transactions', request_errors: 'request_errors' } as const;

let database: TestMongoDatabase;
let client: mongoose.mongo.MongoClient;
let db: mongoose.mongo.Db;
let ferretdb: boolean;

beforeAll(async () => {
  database = createMongoDatabase();
  const store = new MongoStore(database.url);
  await store.migrate();
  await store.close();
  client = new mongoose.mongo.MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  db = client.db(database.name);
  const { verifications, failures } = seedRows();
  const doc = (r: SeedRow) => ({ _id: r.id, accountId: r.accountId, keyId: 'key_plan', requestId: r.requestId, qrcode: 'qr', transactionId: r.transactionId, sendingBank: r.sendingBank, upstream: 'sandbox', latencyMs: 1, createdAt: new Date(r.createdAt) });
  await db.collection('verify_transactions').insertMany(verifications.map((r) => ({ ...doc(r), amount: 1, receivingBank: '014', response: {} })) as never[]);
  await db.collection('request_errors').insertMany(failures.map((r) => ({ ...doc(r), kind: 'upstream_error', message: 'boom' })) as never[]);
  // Payment requests: the busy account's long history, 1 in 50 of them still pending.
  const requests = verifications.map((r, i) => ({ _id: `pr_${i}`, accountId: r.accountId, reference: `order-${i}`, status: i % 50 === 0 ? 'pending' : 'paid', createdAt: new Date(r.createdAt) }));
  await db.collection('payment_requests').insertMany(requests as never[]);
  // Re-checks, one per four verifications: one in seven still open, the older half of the finished ones redacted.
  const rechecks = verifications
    .filter((_r, i) => i % 4 === 0)
    .map((r, i) => ({ ...doc(r), _id: `rc_${r.id.slice(3)}`, transRef: r.transactionId, finishedAt: i % 7 === 3 ? null : new Date(r.createdAt + 1), ...(i % 7 !== 3 && i < 2500 ? { redactedAt: new Date(r.createdAt + 2) } : {}) }));
  await db.collection('rechecks').insertMany(rechecks as never[]);
  const info = (await db.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string };
  ferretdb = info.ferretdbVersion !== undefined;
}, 120_000);

afterAll(async () => {
  await client?.close();
  await database?.drop();
});

/** Fields the filter pins to one value, and fields it bounds (ranges, the keyset cursor). */
function shapeOf(filter: Filter): { equal: Set<string>; bounded: Set<string> } {
  const equal = new Set<string>();
  const bounded = new Set<string>();
  const visit = (f: Filter) => {
    for (const [field, value] of Object.entries(f)) {
      if (field === '$and') (value as Filter[]).forEach(visit);
      else if (field === '$or') for (const branch of value as Filter[]) for (const k of Object.keys(branch)) bounded.add(k);
      else if (value !== null && typeof value === 'object' && !(value instanceof Date)) bounded.add(field);
      else equal.add(field);
    }
  };
  visit(filter);
  return { equal, bounded: new Set([...bounded].filter((f) => !equal.has(f))) };
}

/** MongoDB's rule: the index starts with equality fields, then gives the sort order (or its reverse); bounded fields come after the equalities. */
function serves(key: Key, filter: Filter, sort: Key | null): boolean {
  const { equal, bounded } = shapeOf(filter);
  const fields = Object.keys(key);
  let i = 0;
  while (i < fields.length && equal.has(fields[i]!)) i++;
  if (equal.size > 0 && i === 0) return false;
  const rest = fields.slice(i);
  if ([...bounded].some((f) => !rest.includes(f))) return false;
  if (!sort) return bounded.size === 0 || bounded.has(rest[0]!);
  const wanted = Object.entries(sort);
  const same = wanted.every(([f, dir], j) => rest[j] === f && key[f] === dir);
  const reversed = wanted.every(([f, dir], j) => rest[j] === f && key[f] === -dir);
  return same || reversed;
}

interface Stage {
  stage?: string;
  indexName?: string;
  keyPattern?: Key;
}

function stages(plan: unknown): Stage[] {
  if (plan === null || typeof plan !== 'object') return [];
  const here = 'stage' in plan ? [plan as Stage] : [];
  return [...here, ...Object.values(plan).flatMap(stages)];
}

async function expectServed(collection: string, filter: Filter, sort: Key | null, limit: number | null, role: IndexRole | Key): Promise<void> {
  const expected = typeof role === 'string' ? INDEX_OF[role] : role;
  if (ferretdb) {
    const indexes = await db.collection(collection).indexes();
    expect(indexes.map((ix) => ix.key), `indexes of ${collection}`).toContainEqual(expected);
    expect(serves(expected, filter, sort), `${JSON.stringify(expected)} serves ${JSON.stringify(filter)} sorted ${JSON.stringify(sort)}`).toBe(true);
    return;
  }
  let cursor = db.collection(collection).find(filter);
  if (sort) cursor = cursor.sort(sort);
  if (limit) cursor = cursor.limit(limit);
  const explained = (await cursor.explain('queryPlanner')) as { queryPlanner: { winningPlan: unknown } };
  const winning = stages(explained.queryPlanner.winningPlan);
  const text = JSON.stringify(winning.map((s) => s.indexName ?? s.stage));
  expect(winning.map((s) => s.stage), text).not.toContain('COLLSCAN');
  if (sort) expect(winning.map((s) => s.stage), text).not.toContain('SORT');
  const scans = winning.filter((s) => s.stage === 'IXSCAN');
  expect(scans.length, text).toBeGreaterThan(0);
  for (const scan of scans) expect(serves(scan.keyPattern!, filter, sort), text).toBe(true);
}

describe('mongo query plans', () => {
  it.each(PLANNED_LOOKUPS.map((l) => [l.name, l] as const))('%s', async (_name, lookup) => {
    await expectServed(COLLECTION[lookup.table], auditFilter(lookup.query, lookup.table), NEWEST_FIRST, lookup.query.limit + 1, lookup.index);
  });

  it.each(PLANNED_USAGE.map((u) => [u.name, u] as const))('%s', async (_name, usage) => {
    // usage-query.ts reads both collections with this filter, unsorted (failures
    // also leave out records without an account: a residual filter, no index needed).
    const filter = auditFilter(usage.query, 'request_errors');
    await expectServed('verify_transactions', filter, null, null, usage.index);
    await expectServed('request_errors', filter, null, null, usage.index);
  });
});

describe('mongo payment request plans', () => {
  it("an account's pending requests (LINE matching) read the pending ones alone, newest first", async () => {
    // Status is an equality right after the account: the account's closed history is outside the range read.
    await expectServed('payment_requests', { accountId: 'acc_busy', status: 'pending' }, PENDING_ORDER, 2000, { accountId: 1, status: 1, createdAt: -1, _id: -1 });
  });
});

describe('mongo retention and erasure batches', () => {
  // Each batch reads from its cursor (domain/retention.ts) in the pass's order: an index range, no sort.
  const after = { createdAt: new Date(Date.UTC(2026, 0, 1, 3)), id: 'vt_010800' };
  const PASS_ORDER = { createdAt: 1, _id: 1 } as const;
  it.each([
    ['erasure (verifications)', 'verify_transactions', { accountId: 'acc_busy' }, 'account_time'],
    ['erasure (failures)', 'request_errors', { accountId: 'acc_busy' }, 'account_time'],
    ['retention (failures)', 'request_errors', { createdBefore: new Date(Date.UTC(2026, 0, 2)) }, 'time'],
  ] as const)('%s', async (_name, collection, scope, role) => {
    await expectServed(collection, passFilter(collection, scope, after), PASS_ORDER, 500, role);
  });

  it('retention (verifications): the unredacted records, from the cursor, in order', async () => {
    const filter = passFilter('verify_transactions', { createdBefore: new Date(Date.UTC(2026, 0, 2)) }, after);
    const key = { redactedAt: 1, createdAt: 1, _id: 1 } as const;
    if (ferretdb) {
      expect((await db.collection('verify_transactions').indexes()).map((ix) => ix.key)).toContainEqual(key);
      expect(serves(key, filter, PASS_ORDER)).toBe(true);
      return;
    }
    const explained = (await db.collection('verify_transactions').find(filter).sort(PASS_ORDER).limit(500).explain('queryPlanner')) as { queryPlanner: { winningPlan: unknown } };
    const winning = stages(explained.queryPlanner.winningPlan);
    expect(winning.map((x) => x.stage)).not.toContain('SORT');
    expect(winning.map((x) => x.stage)).not.toContain('COLLSCAN');
  });
  // The open ones (finishedAt null) sit in the same range: finishedAt ends the key, so they are passed over on the index.
  it.each([
    ['erasure (re-checks)', { accountId: 'acc_busy' }, { accountId: 1, redactedAt: 1, createdAt: 1, _id: 1, finishedAt: 1 }],
    ['retention (re-checks)', { createdBefore: new Date(Date.UTC(2026, 0, 2)) }, { redactedAt: 1, createdAt: 1, _id: 1, finishedAt: 1 }],
  ] as const)('%s: the finished ones not redacted yet, from the cursor, in order', async (_name, scope, key) => {
    await expectServed('rechecks', passFilter('rechecks', scope, { createdAt: after.createdAt, id: 'rc_010800' }), PASS_ORDER, 500, key);
  });

  it('webhook delivery retention: the finished deliveries, from the cursor, oldest finished first', async () => {
    const filter = finishedFilter(new Date(Date.UTC(2026, 0, 2)), { createdAt: new Date(Date.UTC(2026, 0, 1, 3)), id: 'whd_010800' });
    const key = { finishedAt: 1, _id: 1 } as const;
    const order = { finishedAt: 1, _id: 1 } as const;
    if (ferretdb) {
      expect((await db.collection('webhook_deliveries').indexes()).map((ix) => ix.key)).toContainEqual(key);
      expect(serves(key, filter, order)).toBe(true);
      return;
    }
    const explained = (await db.collection('webhook_deliveries').find(filter).sort(order).limit(100).explain('queryPlanner')) as { queryPlanner: { winningPlan: unknown } };
    const winning = stages(explained.queryPlanner.winningPlan);
    expect(winning.map((x) => x.stage)).not.toContain('SORT');
    expect(winning.map((x) => x.stage)).not.toContain('COLLSCAN');
    expect(winning.filter((x) => x.stage === 'IXSCAN').map((x) => x.keyPattern)).toEqual([key]);
  });
});

describe('mongo indexes on upgrade', () => {
  it('migrate() drops the indexes the wider ones replace, and keeps the new ones', async () => {
    const old = createMongoDatabase();
    const raw = new mongoose.mongo.MongoClient(old.url, { serverSelectionTimeoutMS: 5_000 });
    await raw.connect();
    try {
      // The indexes an earlier version built.
      await raw.db(old.name).collection('verify_transactions').createIndex({ transactionId: 1 });
      await raw.db(old.name).collection('request_errors').createIndex({ transactionId: 1 });
      await raw.db(old.name).collection('request_errors').createIndex({ requestId: 1 });
      const store = new MongoStore(old.url);
      await store.migrate();
      await store.migrate();
      await store.close();
      const keys = async (c: string) => (await raw.db(old.name).collection(c).indexes()).map((ix) => ix.key);
      expect(await keys('verify_transactions')).not.toContainEqual({ transactionId: 1 });
      expect(await keys('request_errors')).not.toContainEqual({ transactionId: 1 });
      expect(await keys('request_errors')).not.toContainEqual({ requestId: 1 });
      expect(await keys('verify_transactions')).toContainEqual(INDEX_OF.transaction_time);
      expect(await keys('request_errors')).toContainEqual(INDEX_OF.request_time);
    } finally {
      await raw.close();
      await old.drop();
    }
  });
});
