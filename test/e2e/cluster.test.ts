// `serve` with 2 node:cluster workers on one SQLite file: the workers share
// the listeners, credits stay exact across processes, the books reconcile,
// and SIGTERM drains and stops every worker.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('serve --workers 2 on SQLite', () => {
  const dir = tempDir();
  let child: Child | undefined;
  let store: Store | undefined;
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await store?.close();
    dir.remove();
  });

  it('grants exactly the credits there are, reconciles, and stops every worker on SIGTERM', async () => {
    const databaseUrl = `sqlite:${join(dir.path, 'cluster.db')}`;
    store = await openStore(databaseUrl);
    const accounts = new AccountService(store);
    const few = await accounts.createAccount({ name: 'Few Credits', credits: 5, actor: 'test' });
    const drain = await accounts.createAccount({ name: 'Drain', credits: 20, actor: 'test' });

    // Latency keeps requests in flight together, on both workers.
    child = await spawnSlipgate({ DATABASE_URL: databaseUrl, WORKERS: '2', SANDBOX_LATENCY_MS: '1000' });
    const logs = child.logs;
    await eventually(async () => logs.some((l) => l.msg === 'all workers listening'));
    const workerPids = logs.filter((l) => l.msg === 'worker started').map((l) => l.pid as number);
    expect(workerPids).toHaveLength(2);
    expect(workerPids.every(alive)).toBe(true);

    const url = child.publicUrl;
    const results = await Promise.all(Array.from({ length: 24 }, () => postVerify(url, few.apiKey.secret, sandboxQr())));
    const successes = results.filter((r) => r.body.status === 'success');
    expect(successes).toHaveLength(5);
    expect(results.filter((r) => r.body.code === 1023)).toHaveLength(19);
    // Identities, not counts: the requests the workers answered "verified" are exactly the recorded (charged) ones.
    const recorded = await store.listVerifyTransactions({ accountId: few.account.id, limit: 100 });
    expect(recorded.items.map((v) => v.requestId).sort()).toEqual(successes.map((r) => r.requestId).sort());
    // Both workers answered some of them (connections are dealt round-robin).
    await eventually(async () => new Set(logs.filter((l) => l.msg === 'verification').map((l) => l.worker)).size === 2);
    expect(new Set(logs.filter((l) => l.msg === 'verification').map((l) => l.worker))).toEqual(new Set([1, 2]));

    // SIGTERM while six verifications hold credits: all of them finish.
    const inFlight = Array.from({ length: 6 }, () => postVerify(url, drain.apiKey.secret, sandboxQr()));
    await eventually(async () => (await store!.getAccount(drain.account.id))!.held === 6);
    child.proc.kill('SIGTERM');
    const drained = await Promise.all(inFlight);
    expect(drained.map((r) => r.body.status)).toEqual(Array(6).fill('success'));
    expect(await child.exited).toBe(0);
    expect(workerPids.filter(alive)).toEqual([]);
    await expect(fetch(`${url}/api/v1/verify`, { method: 'POST' })).rejects.toThrow();

    const after = async (id: string) => {
      const a = (await store!.getAccount(id))!;
      return { credits: a.credits, held: a.held, usage: a.usage };
    };
    expect(await after(few.account.id)).toEqual({ credits: 0, held: 0, usage: 5 });
    expect(await after(drain.account.id)).toEqual({ credits: 14, held: 0, usage: 6 });

    const doctor = spawnSync(process.execPath, [...SLIPGATE_CLI, 'doctor'], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: 'utf8',
    });
    expect(doctor.stdout).toContain('Checked 2 accounts; 0 credit holds open');
    expect(doctor.stdout).toContain('All accounts reconcile.');
    expect(doctor.status).toBe(0);
  });
});
