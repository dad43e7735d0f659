// docs/deploy.md's rolling upgrade of two instances behind the nginx recipe,
// done while traffic flows: take an instance out of nginx (`down`, reload),
// SIGTERM it, start its replacement, put it back; then the other. Not one
// request may fail, and the books must reconcile afterwards.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { callThrough, freePort, startNginx, type Answer, type Nginx } from './nginx.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const CLIENTS = 4;

describe('rolling restart of two instances behind nginx', () => {
  const dir = tempDir('slipgate-rolling-');
  let db: TestDatabase;
  let nginx: Nginx;
  const ports: number[] = [];
  const instances: Child[] = [];

  const start = (i: number) =>
    spawnSlipgate({ DATABASE_URL: db.url, PORT: String(ports[i]), TRUST_PROXY_HOPS: '1', LEASE_HEARTBEAT_MS: '500' });

  beforeAll(async () => {
    db = await createTestDatabase();
    ports.push(await freePort(), await freePort());
    instances.push(await start(0));
    instances.push(await start(1));
    nginx = await startNginx(dir.path, [`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`]);
    // This load comes from one address, faster than the recipe's per-address limit_req (tested on its own in proxy.test.ts).
    await nginx.reload((conf) => conf.replace(/rate=\d+r\/s;/, 'rate=100000r/s;'));
  }, 180_000);
  afterAll(async () => {
    await nginx?.stop();
    for (const child of instances) {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    await db?.drop();
    dir.remove();
  });

  it('serves every request while each instance in turn is taken out, replaced and put back', { timeout: 300_000 }, async () => {
    const { stdout } = await exec(process.execPath, [...SLIPGATE_CLI, 'accounts', 'create', '--name', 'Rolling shop', '--credits', '100000', '--json'], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
    });
    const { accountId, apiKey } = JSON.parse(stdout) as { accountId: string; apiKey: string };

    const answers: (Answer | Error)[] = [];
    let running = true;
    const waiters: { count: number; resolve: () => void }[] = [];
    /** Resolves once `n` more requests were answered (so each phase sees traffic). */
    const moreAnswers = (n: number) => new Promise<void>((resolve) => waiters.push({ count: answers.length + n, resolve }));
    const client = async () => {
      while (running) {
        const answer = await callThrough(nginx, { headers: { 'x-api-key': apiKey }, body: JSON.stringify({ qrcode: sandboxQr() }) }).catch((err: Error) => err);
        answers.push(answer);
        for (const w of waiters.filter((w) => answers.length >= w.count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, client));
    await moreAnswers(20);

    for (const i of [0, 1]) {
      const line = new RegExp(`(server 127\\.0\\.0\\.1:${ports[i]} max_fails=0)( down)?;`);
      // 1. nginx sends nothing new to it; old workers finish what they had.
      await nginx.reload((conf) => conf.replace(line, '$1 down;'));
      await moreAnswers(20);
      // 2. SIGTERM drains it; the replacement starts on the same address.
      instances[i]!.proc.kill('SIGTERM');
      expect(await instances[i]!.exited).toBe(0);
      await moreAnswers(20);
      instances[i] = await start(i);
      expect((await fetch(`${instances[i]!.adminUrl}/readyz`)).status).toBe(200);
      // 3. back in nginx.
      await nginx.reload((conf) => conf.replace(line, '$1;'));
      await moreAnswers(20);
    }
    running = false;
    await load;

    const failed = answers.filter((a) => a instanceof Error || a.status !== 200 || a.body?.status !== 'success');
    expect(failed).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(20 * 9);
    // Both replacements served traffic once put back (each process counts its own).
    for (const instance of instances) {
      const metrics = await (await fetch(`${instance.adminUrl}/metrics`)).text();
      expect(metrics).toMatch(/^slipgate_verifications_total\{[^}]*outcome="success"[^}]*\} [1-9]/m);
    }
    const report = await runDoctor(db.url);
    expect(report.code).toBe(0);
    expect(report.openHolds).toBe(0);
    const { stdout: listed } = await exec(process.execPath, [...SLIPGATE_CLI, 'accounts', 'list', '--json'], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
    });
    const account = (JSON.parse(listed) as { id: string; credits: number; usage: number }[]).find((a) => a.id === accountId)!;
    expect(account.usage).toBe(answers.length);
    expect(account.credits).toBe(100000 - answers.length);
  });
});
