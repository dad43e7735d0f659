// SIGTERM: stop accepting, finish every in-flight verification, exit 0.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { tempDir } from '../helpers/temp.js';

describe('graceful shutdown', () => {
  const dir = tempDir();
  let child: Child | undefined;
  afterAll(() => {
    child?.proc.kill('SIGKILL');
    dir.remove();
  });

  it('answers every in-flight request before exiting', { timeout: 60_000 }, async () => {
    const databaseUrl = `sqlite:${join(dir.path, 'shutdown.db')}`;
    const store = await openStore(databaseUrl);
    const { account, apiKey } = await new AccountService(store).createAccount({ name: 'Term Shop', credits: 20, actor: 'test' });

    // The network is slow enough that all eight are at it when the signal comes.
    child = await spawnSlipgate({ DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '5000' });
    const inFlight = Array.from({ length: 8 }, () => postVerify(child!.publicUrl, apiKey.secret, sandboxQr()));
    await eventually(async () => (await store.listHolds(account.id)).length === 8);
    child.proc.kill('SIGTERM');

    const results = await Promise.all(inFlight);
    expect(results.map((r) => r.body.status)).toEqual(Array(8).fill('success'));
    expect(await child.exited).toBe(0);
    await expect(fetch(`${child.publicUrl}/api/v1/verify`, { method: 'POST' })).rejects.toThrow();

    const after = await store.getAccount(account.id);
    expect({ credits: after!.credits, held: after!.held, usage: after!.usage }).toEqual({ credits: 12, held: 0, usage: 8 });
    expect((await reconcileAccount(store, account.id)).problems).toEqual([]);
    await store.close();
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});
