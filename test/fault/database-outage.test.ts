// PostgreSQL outage under load. A TCP proxy sits between slipgate and the
// shared server (which is never restarted): first every connection is reset
// (server crash/restart), then traffic silently vanishes (network partition).
// Callers get a clean 503 JSON answer meanwhile; slipgate recovers on its own
// (same process, same pool); nothing is charged twice; doctor is clean.
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { startLoad, untilAnswersIn, untilSuccessIn, type Answer } from '../helpers/load.js';
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { expectNothingLostOrDoubled } from './outage-checks.js';

const CREDITS = 50_000;
/** Worst case in a partition: a statement waits statement_timeout + 5 s (query_timeout in sql.ts). */
const DEADLINE_MS = 15_000;

/** slipgate could not reach its store: nothing charged, safe to retry. */
const unavailable = (a: Answer) => a.status === 503;

describe('database outage under load (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let app: TestApp | undefined;
  let direct: Store | undefined;
  afterAll(async () => {
    await app?.stop().catch(() => {});
    await direct?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('fails cleanly with 503 JSON and recovers without a restart', { timeout: 120_000 }, async () => {
    db = await createTestDatabase();
    const server = new URL(PG_ADMIN_URL);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    viaProxy.search = '?pool_max=4&connect_timeout=1000&statement_timeout=1000';

    // The test's own view of the database bypasses the proxy.
    direct = await openStore(`${db.url}?pool_max=2`);
    const { account, apiKey } = await new AccountService(direct).createAccount({ name: 'Outage Shop', credits: CREDITS, actor: 'test' });

    app = await startApp({
      databaseUrl: viaProxy.toString(),
      upstream: new SandboxUpstream('sandbox', 10),
      // Holds orphaned by a failed settle/release are recovered soon after the database is back.
      env: { UPSTREAM_TIMEOUT_MS: '1000', HOLD_STALE_MS: '2500', API_KEY_CACHE_TTL_MS: '200' },
    });
    const readyz = async () => (await fetch(`${app!.adminUrl}/readyz`)).status;

    const load = startLoad({ publicUrl: app.publicUrl, apiKey: apiKey.secret, qrcode: () => sandboxQr(), workers: 4, deadlineMs: DEADLINE_MS });
    const phase = (name: string) => (load.phase = name);
    phase('up');
    await untilAnswersIn(load, 'up', 10);

    phase('reset');
    proxy.cut('reset');
    await eventually(async () => load.inPhase('reset').some((a) => a.status === 503));
    expect(await readyz()).toBe(503);
    await untilAnswersIn(load, 'reset', 10, unavailable);
    const acceptedBefore = proxy.accepted;
    phase('back-after-reset');
    proxy.restore();
    await untilSuccessIn(load, 'back-after-reset');
    // The pool replaced its dead connections with new ones.
    expect(proxy.accepted).toBeGreaterThan(acceptedBefore);
    expect(await readyz()).toBe(200);

    phase('partition');
    proxy.cut('blackhole');
    await untilAnswersIn(load, 'partition', 4, unavailable, DEADLINE_MS * 2);
    phase('back-after-partition');
    proxy.restore();
    await untilAnswersIn(load, 'back-after-partition', 10, (a) => a.body?.status === 'success', DEADLINE_MS);
    const answers = await load.stop();

    await expectNothingLostOrDoubled({ answers, direct, databaseUrl: db.url, accountId: account.id, credits: CREDITS });
  });
});
