// The PostgreSQL backup docs/operations.md tells operators to take: pg_dump
// of a database a real `slipgate serve` child is writing to under steady
// load, run as the page writes it (the URL without slipgate's own
// `?pool_max=`, which pg_dump refuses), restored with pg_restore into a new
// database. The restored books
// reconcile (doctor) and hold every success answered before the dump began;
// the load saw no error.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { startLoad, untilAnswersIn } from '../helpers/load.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { postgresBinDir } from '../helpers/private-postgres.js';
import { tempDir } from '../helpers/temp.js';

const exec = promisify(execFile);

describe('pg_dump under load restores to books that reconcile', () => {
  const dir = tempDir();
  const databases: TestDatabase[] = [];
  let server: Child | undefined;
  afterAll(async () => {
    server?.proc.kill('SIGKILL');
    for (const db of databases) await db.drop().catch(() => {});
    dir.remove();
  });

  it('dumps a serving database consistently and pg_restore brings it back whole', { timeout: 180_000 }, async () => {
    const live = await createTestDatabase();
    databases.push(live);
    const store = await openStore(live.url);
    const { apiKey } = await new AccountService(store).createAccount({ name: 'ร้านสำรองข้อมูล', credits: 1_000_000, actor: 'test' });
    await store.close();
    // With the pool setting in the URL, as docs/configuration.md offers it.
    const databaseUrl = `${live.url}?pool_max=4`;
    server = await spawnSlipgate({ DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '2' });

    const load = startLoad({ publicUrl: server.publicUrl, apiKey: apiKey.secret, qrcode: () => sandboxQr(), workers: 4, deadlineMs: 30_000 });
    load.phase = 'before';
    await untilAnswersIn(load, 'before', 200, (a) => a.body?.status === 'success', 60_000);
    load.phase = 'during';
    const answeredBefore = load.answers.filter((a) => a.body?.status === 'success').map((a) => a.body.data.transactionId as string);
    const dump = join(dir.path, 'slipgate.dump');
    // The command as docs/operations.md writes it, into this test's file.
    const documented = /^\s*(pg_dump -Fc .*?) > slipgate-\$\(date \+%F\)\.dump$/m.exec(readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8'))![1]!;
    expect(documented).toContain('DATABASE_URL');
    await exec('bash', ['-c', `${documented} > "$1"`, 'pg_dump', dump], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PATH: `${postgresBinDir()}:${process.env.PATH}` },
    });
    load.phase = 'after';
    await untilAnswersIn(load, 'after', 50, (a) => a.body?.status === 'success', 60_000);
    const answers = await load.stop();
    expect(answers.filter((a) => a.body?.status !== 'success')).toEqual([]);
    expect(load.inPhase('during').length).toBeGreaterThan(0);
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const restored = await createTestDatabase();
    databases.push(restored);
    await exec(join(postgresBinDir(), 'pg_restore'), ['--no-owner', '--exit-on-error', '-d', restored.url, dump]);
    const client = new pg.Client({ connectionString: restored.url });
    await client.connect();
    const inDump = new Set((await client.query<{ transaction_id: string }>('SELECT transaction_id FROM verify_transactions')).rows.map((r) => r.transaction_id));
    await client.end();
    expect(answeredBefore.length).toBeGreaterThanOrEqual(200);
    expect(answeredBefore.filter((id) => !inDump.has(id))).toEqual([]);
    // A snapshot from the middle: the successes answered after it are not in it.
    expect(inDump.size).toBeLessThan(answers.length);
    expect(await runDoctor(restored.url)).toMatchObject({ code: 0, accounts: 1, discrepancies: [] });
  });
});
