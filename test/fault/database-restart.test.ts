// An immediate PostgreSQL shutdown under load: the test's own server is
// stopped with `pg_ctl stop -m immediate` (no shutdown checkpoint, in-flight
// transactions lost, crash recovery on the next start; the operating system
// keeps what PostgreSQL wrote, so this is not a power cut), kept down until
// callers have met it, and started again.
// slipgate keeps running throughout: callers get clean JSON errors while the
// server is down, verifications succeed again once it is back, and the books
// add up afterwards.
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { startLoad, untilAnswersIn, untilSuccessIn } from '../helpers/load.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { expectNothingLostOrDoubled } from './outage-checks.js';

const CREDITS = 50_000;
const DEADLINE_MS = 15_000;

describe('immediate PostgreSQL shutdown and restart under load', () => {
  let server: PrivatePostgres | undefined;
  let app: TestApp | undefined;
  let direct: Store | undefined;
  afterAll(async () => {
    await app?.stop().catch(() => {});
    await direct?.close().catch(() => {});
    await server?.dispose();
  });

  it('answers cleanly while the server is down and recovers on its own once it restarts', { timeout: 120_000 }, async () => {
    server = await startPrivatePostgres();
    direct = await openStore(`${server.url}?pool_max=2`);
    const { account, apiKey } = await new AccountService(direct).createAccount({ name: 'Crash Shop', credits: CREDITS, actor: 'test' });

    app = await startApp({
      databaseUrl: `${server.url}?pool_max=4&connect_timeout=1000&statement_timeout=1000`,
      upstream: new SandboxUpstream('sandbox', 10),
      env: { UPSTREAM_TIMEOUT_MS: '1000', HOLD_STALE_MS: '2500', API_KEY_CACHE_TTL_MS: '200' },
    });
    const readyz = async () => (await fetch(`${app!.adminUrl}/readyz`)).status;

    const load = startLoad({ publicUrl: app.publicUrl, apiKey: apiKey.secret, qrcode: () => sandboxQr(), workers: 4, deadlineMs: DEADLINE_MS });
    load.phase = 'up';
    await untilAnswersIn(load, 'up', 10);

    load.phase = 'down';
    await server.stopImmediately();
    await eventually(async () => load.inPhase('down').some((a) => a.status === 503));
    expect(await readyz()).toBe(503);
    await untilAnswersIn(load, 'down', 10, (a) => a.status === 503);

    load.phase = 'restarted';
    await server.start();
    await untilSuccessIn(load, 'restarted', DEADLINE_MS);
    expect(await readyz()).toBe(200);
    await untilAnswersIn(load, 'restarted', 10, (a) => a.body?.status === 'success', DEADLINE_MS);
    const answers = await load.stop();

    // Read after the restart: what crash recovery kept is what counts.
    await expectNothingLostOrDoubled({ answers, direct, databaseUrl: server.url, accountId: account.id, credits: CREDITS });
  });
});
