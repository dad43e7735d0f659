// Throwaway databases for a bench run: created, seeded with the bench
// accounts, reconciled after the run (every credit accounted for), dropped.
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAll } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EngineName } from './args.js';
import { createDatabase, type BenchDatabase } from './engines.js';
import type { BenchRun } from './run.js';

const ACCOUNTS = 32;
export const CREDITS_PER_ACCOUNT = 10_000_000;

/**
 * The code that makes, seeds and reconciles a database: this tree's, or with
 * --against the other revision's own (transpiled) modules, so its database
 * has the schema that revision knows (a newer one it would refuse to open).
 */
export interface Seeder {
  /** Added to the report's reconcile line: whose database it was. */
  label: string;
  openStore: typeof openStore;
  AccountService: typeof AccountService;
  reconcileAll: typeof reconcileAll;
}

const THIS_TREE: Seeder = { label: '', openStore, AccountService, reconcileAll };

/** The seeder of a revision built for --against (build.ts: its src/ transpiled into `dir`). */
export async function revisionSeeder(dir: string, revision: string): Promise<Seeder> {
  const load = (path: string) => import(pathToFileURL(join(dir, 'src', path)).href);
  const [store, accounts, reconciling] = await Promise.all([load('store/open.js'), load('domain/accounts.js'), load('domain/reconcile.js')]);
  return { label: ` (${revision})`, openStore: store.openStore, AccountService: accounts.AccountService, reconcileAll: reconciling.reconcileAll };
}

interface Seeded {
  engine: EngineName;
  db: BenchDatabase;
  keys: string[];
}

/** onSeededDatabase for several engines at once; an engine that is not available is left out. */
export async function onSeededDatabases(run: BenchRun, engines: EngineName[], body: (seeded: Seeded[]) => Promise<void>, seeder: Seeder = THIS_TREE, seeded: Seeded[] = []): Promise<void> {
  const [engine, ...rest] = engines;
  if (engine === undefined) return seeded.length > 0 ? body(seeded) : undefined;
  let available = false;
  await onSeededDatabase(
    run,
    engine,
    async (db, keys) => {
      available = true;
      await onSeededDatabases(run, rest, body, seeder, [...seeded, { engine, db, keys }]);
    },
    seeder,
  );
  if (!available) await onSeededDatabases(run, rest, body, seeder, seeded);
}

/** A throwaway database with the bench accounts for `body`, reconciled after it and dropped; skipped (with the reason) when the engine is not available. */
export async function onSeededDatabase(run: BenchRun, engine: EngineName, body: (db: BenchDatabase, keys: string[]) => Promise<void>, seeder: Seeder = THIS_TREE): Promise<void> {
  const setup = await createDatabase(engine, run.work, run.root);
  if (!setup.ok) {
    run.say(`${engine}: skipped (${setup.reason})`);
    run.report.skipped.push({ engine, reason: setup.reason });
    return;
  }
  const { db } = setup;
  run.report.engines[engine] ??= db.description;
  try {
    await body(db, await seedAccounts(db, seeder));
    run.report.reconcile[`${engine}${seeder.label}`] = await reconcile(db, seeder);
  } finally {
    await db.drop();
  }
}

async function seedAccounts(db: BenchDatabase, seeder: Seeder): Promise<string[]> {
  const store = await seeder.openStore(db.url);
  try {
    const accounts = new seeder.AccountService(store);
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

export async function reconcile(db: BenchDatabase, seeder: Seeder = THIS_TREE): Promise<string> {
  const store = await seeder.openStore(db.url);
  try {
    const results = await seeder.reconcileAll(store);
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
