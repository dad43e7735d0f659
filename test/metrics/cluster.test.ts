// /metrics under `serve --workers 2` (real child processes): whichever worker
// a scrape reaches, it answers with the whole cluster's figures.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { scrape, verifyFresh } from './scrape.js';

describe('/metrics with serve --workers 2', () => {
  const dir = tempDir();
  let child: Child | undefined;
  let store: Store | undefined;
  afterAll(async () => {
    if (child && child.proc.exitCode === null) {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    await store?.close();
    dir.remove();
  });

  it('adds up both workers, and shows a shared store figure once', { timeout: 120_000 }, async () => {
    const databaseUrl = `sqlite:${join(dir.path, 'metrics.db')}`;
    store = await openStore(databaseUrl);
    const shop = await new AccountService(store).createAccount({ name: 'Shop', credits: 50, actor: 'test' });
    const key = shop.apiKey.secret;

    child = await spawnSlipgate({ DATABASE_URL: databaseUrl, WORKERS: '2', UPSTREAM_TIMEOUT_MS: '1500', HOLD_STALE_MS: '60000' });
    const { logs } = child;
    // Starting takes a while on a busy machine (tsx compiles in each worker).
    await eventually(async () => logs.some((l) => l.msg === 'all workers listening'), 60_000);

    // Fresh connections, dealt to the workers in turn.
    const sent = { success: 0, slip_not_found: 0, insufficient: 0 };
    for (let i = 0; i < 12; i++) {
      const notFound = i % 3 === 0;
      const res = await verifyFresh(child.publicUrl, key, sandboxQr(notFound ? { outcome: 'not-found' } : {}));
      expect(res.body.status).toBe(notFound ? 'error' : 'success');
      sent[notFound ? 'slip_not_found' : 'success']++;
    }
    const served = () => new Set(logs.filter((l) => l.msg === 'verification' && l.path === '/api/v1/verify').map((l) => l.worker));
    await eventually(async () => served().size === 2);

    // Every scrape, on either worker, has the cluster's totals.
    for (let i = 0; i < 4; i++) {
      const m = await scrape(child.adminUrl);
      expect(m.value('slipgate_processes')).toBe(2);
      expect(m.value('slipgate_verifications_total', { outcome: 'success', code: '' })).toBe(sent.success);
      expect(m.value('slipgate_verifications_total', { outcome: 'slip_not_found', code: '' })).toBe(sent.slip_not_found);
      expect(m.value('slipgate_verification_duration_seconds_count', { result: 'success' })).toBe(sent.success);
      expect(m.value('slipgate_bank_requests_total', { domain: 'sandbox', outcome: 'success' })).toBe(sent.success);
      // Each worker has its own breaker: the state counts processes.
      expect(m.value('slipgate_bank_breaker_state', { domain: 'sandbox', state: 'closed' })).toBe(2);
      expect(m.value('slipgate_store_operation_duration_seconds_count', { operation: 'settleHold', result: 'ok' })).toBe(sent.success);
    }
    const scrapedBy = new Set(logs.filter((l) => l.msg === 'request' && l.path === '/metrics').map((l) => l.worker));
    await eventually(async () => {
      await scrape(child!.adminUrl);
      for (const l of logs) if (l.msg === 'request' && l.path === '/metrics') scrapedBy.add(l.worker);
      return scrapedBy.size === 2;
    });

    // One credit held (a slip the sandbox answers only at the deadline): both
    // workers read it from the store, the cluster shows it once.
    const slow = postVerify(child.publicUrl, key, sandboxQr({ outcome: 'timeout' }));
    await eventually(async () => (await store!.getAccount(shop.account.id))!.held === 1);
    const during = await scrape(child.adminUrl);
    expect(during.value('slipgate_credits_held')).toBe(1);
    expect((await slow).body.message).toBe('verification service timed out');

    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });
});
