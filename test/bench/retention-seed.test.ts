// Scenario R's records, written straight through each engine's driver as
// the bench does, on a real SQLite file and a real PostgreSQL database: a
// span ending before the retention cutoff is wholly past it (the pass the
// server runs redacts every one), a second seeding with its own prefix does
// not collide with the first, of a span ending today only the part past the cutoff is redacted, and the
// account still reconciles.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAll } from '../../src/domain/accounts/reconcile.js';
import { removePersonalData, retentionCutoff } from '../../src/domain/personal-data/retention.js';
import { openStore } from '../../src/store/open.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import { seedHistory } from '../../scripts/bench/history.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

const DAY_MS = 86_400_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(engine: 'sqlite' | 'postgres'): Promise<BenchDatabase> {
  if (engine === 'sqlite') {
    const dir = tempDir();
    cleanups.push(dir.remove);
    return { engine, url: `sqlite:${join(dir.path, 'bench.db')}`, description: 'test', drop: async () => {} };
  }
  const pg = await createTestDatabase();
  cleanups.push(pg.drop);
  return { engine, url: pg.url, description: 'test', drop: pg.drop };
}

describe.each(['sqlite', 'postgres'] as const)('scenario R records on %s', (engine) => {
  it('a span ending a day before the cutoff is redacted whole by the retention pass, one ending today only where past the cutoff; the books still reconcile', { timeout: 60_000 }, async () => {
    const db = await database(engine);
    const store = await openStore(db.url);
    cleanups.push(() => store.close());
    const { account } = await new AccountService(store).createAccount({ name: 'Retention history', credits: 1000, actor: 'test' });
    const now = new Date();
    const endsAt = now.getTime() - 31 * DAY_MS;
    await seedHistory(db, account.id, 150, { prefix: 'retention1', endsAt });
    await seedHistory(db, account.id, 120, { prefix: 'retention2', endsAt });
    await seedHistory(db, account.id, 40, { prefix: 'recent', endsAt: now.getTime() + 1000 });

    const result = await removePersonalData(store, { createdBefore: retentionCutoff(now, 30) }, { now });
    // The recent span reaches back a year too: its records older than 30 days are past the cutoff, the rest are not.
    const recentPast = Math.floor((40 * (365 - 30)) / 365);
    expect(result.redacted).toBeGreaterThanOrEqual(270 + recentPast - 1);
    expect(result.redacted).toBeLessThanOrEqual(270 + recentPast + 1);
    expect((await store.getAccount(account.id))!.usage).toBe(310);
    expect((await reconcileAll(store)).flatMap((r) => r.problems)).toEqual([]);
  });
});
