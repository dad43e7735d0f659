// A MongoDB-wire server that does not make a guarded update atomic (FerretDB,
// this run's own test server) overdraws credits under concurrency, so `serve`
// refuses it with one line unless MONGODB_ALLOW_NON_ATOMIC=yes, and `doctor`
// says so (src/store/non-atomic.ts). Real processes on the run's FerretDB.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import { createMongoDatabase, type TestMongoDatabase } from '../helpers/mongo.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

/** One command, its exit code and what it printed; killed if it has not ended after 30 s (a serve that started). */
async function slipgate(env: Record<string, string>, ...args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], {
      env: { ...process.env, PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'silent', ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; signal?: string; stdout: string; stderr: string };
    return { code: e.signal ?? e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const isFerret = !process.env.MONGODB_URI;
let database: TestMongoDatabase;

beforeAll(async () => {
  database = createMongoDatabase();
  const store = await openStore(database.url);
  try {
    await new AccountService(store).createAccount({ name: 'Shop', credits: 5, actor: 'test' });
  } finally {
    await store.close();
  }
});
afterAll(async () => {
  await database?.drop();
});

describe.runIf(isFerret)('a MongoDB-wire server that does not make a guarded update atomic (FerretDB)', { timeout: 120_000 }, () => {
  it('is refused by serve with one line naming it and the setting, before anything is served', async () => {
    const served = await slipgate({ DATABASE_URL: database.url, MONGODB_ALLOW_NON_ATOMIC: 'no' }, 'serve');
    expect(served.code).toBe(1);
    expect(served.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^slipgate: DATABASE_URL is FerretDB v[\d.]+, a MongoDB-wire server .*not atomically.*MONGODB_ALLOW_NON_ATOMIC=yes for a test$/)]);
  });

  it('is reported by doctor, which exits 1 unless MONGODB_ALLOW_NON_ATOMIC=yes', async () => {
    const refused = await slipgate({ DATABASE_URL: database.url, MONGODB_ALLOW_NON_ATOMIC: 'no' }, 'doctor');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^All accounts reconcile\.$/m);
    expect(refused.stdout).toMatch(/^NOT SAFE FOR MONEY: DATABASE_URL is FerretDB v[\d.]+, /m);

    const allowed = await slipgate({ DATABASE_URL: database.url, MONGODB_ALLOW_NON_ATOMIC: 'yes' }, 'doctor', '--json');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ accounts: 1, discrepancies: [], nonAtomicDatabase: expect.stringMatching(/^DATABASE_URL is FerretDB /), allowed: true });
  });

  it('blocks going live even when allowed for a test', async () => {
    const checked = await slipgate({ DATABASE_URL: database.url, MONGODB_ALLOW_NON_ATOMIC: 'yes' }, 'doctor', '--go-live', '--json');
    expect(checked.code).toBe(1);
    const { checks } = JSON.parse(checked.stdout) as { checks: { check: string; state: string; detail: string }[] };
    expect(checks.find((c) => c.check === 'database')).toMatchObject({ state: 'blocks', detail: expect.stringMatching(/^DATABASE_URL is FerretDB /) });
  });
});
