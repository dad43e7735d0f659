// Throwaway databases for a bench run: created, seeded with the bench
// accounts, reconciled after the run (every credit accounted for), dropped.
import { AccountService } from '../../src/domain/accounts.js';
import { reconcileAll } from '../../src/domain/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { EngineName } from './args.js';
import { createDatabase, type BenchDatabase } from './engines.js';
import type { BenchRun } from './run.js';

const ACCOUNTS = 32;
export const CREDITS_PER_ACCOUNT = 10_000_000;

interface Seeded {
  engine: EngineName;
  db: BenchDatabase;
  keys: string[];
}

/** onSeededDatabase for several engines at once; an engine that is not available is left out. */
export async function onSeededDatabases(run: BenchRun, engines: EngineName[], body: (seeded: Seeded[]) => Promise<void>, seeded: Seeded[] = []): Promise<void> {
  const [engine, ...rest] = engines;
  if (engine === undefined) return seeded.length > 0 ? body(seeded) : undefined;
  let available = false;
  await onSeededDatabase(run, engine, async (db, keys) => {
    available = true;
    await onSeededDatabases(run, rest, body, [...seeded, { engine, db, keys }]);
  });
  if (!available) await onSeededDatabases(run, rest, body, seeded);
}

/** A throwaway database with the bench accounts for `body`, reconciled after it and dropped; skipped (with the reason) when the engine is not available. */
export async function onSeededDatabase(run: BenchRun, engine: EngineName, body: (db: BenchDatabase, keys: string[]) => Promise<void>): Promise<void> {
  const setup = await createDatabase(engine, run.work, run.root);
  if (!setup.ok) {
    run.say(`${engine}: skipped (${setup.reason})`);
    run.report.skipped.push({ engine, reason: setup.reason });
    return;
  }
  const { db } = setup;
  run.report.engines[engine] = db.description;
  try {
    await body(db, await seedAccounts(db));
    run.report.reconcile[engine] = await reconcile(db);
  } finally {
    await db.drop();
  }
}

async function seedAccounts(db: BenchDatabase): Promise<string[]> {
  const store = await openStore(db.url);
  try {
    const accounts = new AccountService(store);
    const keys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const { apiKey } = await accounts.createAccount({ name: `Bench shop ${i + 1}`, credits: CREDITS_PER_ACCOUNT, actor: 'bench' });
      keys.push(apiKey.secret);
    }
    return keys;
  } finally {
    await store.close();
  }
}

export async function reconcile(db: BenchDatabase): Promise<string> {
  const store = await openStore(db.url);
  try {
    const results = await reconcileAll(store);
    const bad = results.filter((r) => r.problems.length > 0);
    const holds = (await store.listHolds()).length;
    const usage = results.reduce((sum, r) => sum + r.usage, 0);
    return bad.length === 0
      ? `all ${results.length} accounts reconcile; ${usage.toLocaleString('en-US')} credits spent; ${holds} holds open`
      : `${bad.length} DISCREPANCIES: ${bad.map((r) => `${r.accountId}: ${r.problems.join('; ')}`).join(' | ')}`;
  } finally {
    await store.close();
  }
}
