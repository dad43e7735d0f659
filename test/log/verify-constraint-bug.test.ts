// A verification whose write the database refuses for breaking one of its
// rules still fails safely (503, nothing charged), and the log says it is a
// bug, naming the rule: no write on the verify path may ever clash, so only
// a broken guard gets there (issue #37 was one, stopped only by the CHECK).
// The rule here is added by the test to a real database: every hold breaks it.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { startGraphqlApp, type GraphqlTestApp } from '../graphql/helpers.js';

const ERROR = 50;

/** Adds a rule named test_rule that refuses every new hold, with the engine's own means. */
async function refuseHolds(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    // A writable handle of its own: the fault is a trigger added behind the store's back.
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    // SQLite cannot add a CHECK to a table; a trigger's RAISE(ABORT) is a constraint failure too.
    db.exec("CREATE TRIGGER test_rule BEFORE INSERT ON credit_holds BEGIN SELECT RAISE(ABORT, 'test_rule'); END");
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('ALTER TABLE credit_holds ADD CONSTRAINT test_rule CHECK (false) NOT VALID');
  await client.end();
}

describe.each(testEngines().filter((e) => e.name !== 'mongo'))('a verification write that breaks a database rule, on %s', (engine) => {
  let app: GraphqlTestApp | undefined;
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  it('answers 503, charges nothing, and logs a bug naming the rule', async () => {
    const logs: Record<string, unknown>[] = [];
    app = await startGraphqlApp({ databaseUrl: await engine.databaseUrl(), logs });
    const { accountId, apiKey } = await app.account(2);
    await refuseHolds(app.databaseUrl);

    const res = await app.verify(apiKey, sandboxQr());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'error', message: 'service temporarily unavailable' });
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 2, held: 0, usage: 0 });

    const requestId = res.headers.get('x-request-id');
    const lines = logs.filter((l) => l.requestId === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: ERROR, bug: true, constraint: expect.stringContaining('test_rule') });
    expect(lines[0]!.msg).toMatch(/^bug: a write of a verification broke the database rule .*test_rule/);
  });
});
