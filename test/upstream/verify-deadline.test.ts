// The verification's bank deadline, on a fake clock: a real verification
// (SQLite store, key lookup, hold) asks a real KBank adapter, through the
// pool, on a real local HTTP server that takes the request and never
// answers. Only the deadline's timer is fake (setTimeout/clearTimeout;
// sockets, the store and the adapter's own token budget keep real time), so
// the test moves time itself: one millisecond before the configured timeout
// nothing has given up, at the timeout the call is abandoned and the caller
// hears "verification service timed out". No duration is measured.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import { loadConfig } from '../../src/config.js';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { newId } from '../../src/domain/keys/api-key.js';
import type { Upstream } from '../../src/domain/ports/upstream.js';
import { VerificationService, type VerifyOutcome } from '../../src/domain/verify/service.js';
import { verifyAnswer } from '../../src/http/verify-answer.js';
import { createLogger } from '../../src/log/log.js';
import { openStore } from '../../src/store/open.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the verification\u2019s bank deadline', () => {
  it.each([
    ['the default', {}, 10_000],
    ['UPSTREAM_TIMEOUT_MS', { UPSTREAM_TIMEOUT_MS: '2500' }, 2_500],
  ])('fires at %s timeout and not a millisecond before, through the pool and a KBank adapter', async (_which, env, expectedMs) => {
    const config = loadConfig(env);
    expect(config.UPSTREAM_TIMEOUT_MS).toBe(expectedMs);

    const dir = tempDir();
    const store = await openStore(`sqlite:${join(dir.path, 'deadline.db')}`);
    await store.migrate();
    cleanups.push(() => dir.remove(), () => store.close());
    const bank = await startFakeKbank();
    cleanups.push(() => bank.close());
    const pool = buildUpstream([bank.config('bank-1')]);
    cleanups.push(() => pool.close());
    // The signal the verification hands the pool (and the pool the adapter).
    const signals: AbortSignal[] = [];
    const upstream: Upstream = { name: pool.name, verify: (query, signal) => (signals.push(signal), pool.verify(query, signal)) };
    const { account, apiKey } = await new AccountService(store).createAccount({ name: 'Shop', credits: 2, actor: 'test' });
    const verification = new VerificationService({
      store,
      keys: storeServices(store).keys,
      upstream,
      // As compose.ts wires it.
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      logger: createLogger('silent'),
      newId: () => newId('req'),
    });

    const atBank = bank.holdNextVerify();
    cleanups.unshift(() => atBank.release());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const bytes = Buffer.from(JSON.stringify({ qrcode: sandboxQr({ amount: 10 }) }));
    let answered: VerifyOutcome | undefined;
    const outcome = verification.verify({ apiKey: apiKey.secret, readBody: async () => ({ ok: true, contentType: 'application/json', bytes }), requestId: 'r1' });
    void outcome.then((o) => (answered = o));
    // The token call went through; the verify request is at the bank, which sits on it.
    await atBank.arrived;
    const closedBefore = bank.traffic.closed;

    await vi.advanceTimersByTimeAsync(expectedMs - 1);
    expect(answered).toBeUndefined();
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    expect(bank.exchanges.filter((e) => e.call === 'verify')).toEqual([]);
    expect(bank.traffic.closed).toBe(closedBefore);
    expect(await store.getAccount(account.id)).toMatchObject({ credits: 1, held: 1, usage: 0 });

    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]!.aborted).toBe(true);
    const out = verifyAnswer(await outcome);
    expect(out.status).toBe(200);
    expect(out.body).toStrictEqual({ status: 'error', message: 'verification service timed out' });
    vi.useRealTimers();
    // The bank's side: the request was abandoned, never answered; the held credit came back.
    await eventually(async () => bank.exchanges.some((e) => e.call === 'verify'));
    expect(bank.exchanges.filter((e) => e.call === 'verify')).toEqual([{ call: 'verify', outcome: 'abandoned' }]);
    expect(await store.getAccount(account.id)).toMatchObject({ credits: 2, held: 0, usage: 0 });
    expect((await store.listRequestErrors({ accountId: account.id, limit: 5 })).items).toMatchObject([{ kind: 'upstream_timeout', upstream: 'bank-1' }]);
  });
});
