// How often the running worker claims, counted on a real SQLite store: every
// event written wakes it, but events written close together are claimed
// together (one claim per minimum interval at most), and an event written
// after a quiet spell is claimed at once, not after the interval. A backlog
// larger than the slots is claimed as slots free up, a batch at a time.
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import { createLogger } from '../../src/log/log.js';
import type { Store } from '../../src/domain/ports/store.js';
import { outboxRecords, verificationSucceeded } from '../../src/domain/webhooks/events.js';
import { WebhookWorker } from '../../src/domain/webhooks/worker.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { httpWebhookSender } from '../../src/webhooks/http-sender.js';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const dir = tempDir();
const store: Store = new SqliteStore(join(dir.path, 'claims.db'));
// The receivers listen on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const services = storeServices(store, { allowPrivateWebhooks: true });
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
afterAll(async () => {
  await store.close();
  dir.remove();
});

/** The real store, with each claim's start time (performance.now()) and how many it took recorded. */
function countingClaims(): { store: Store; claims: number[]; taken: number[] } {
  const claims: number[] = [];
  const taken: number[] = [];
  const counting: Store = Object.assign(Object.create(store) as Store, {
    claimWebhookDeliveries: async (q: Parameters<Store['claimWebhookDeliveries']>[0]) => {
      claims.push(performance.now());
      const due = await store.claimWebhookDeliveries(q);
      taken.push(due.length);
      return due;
    },
  });
  return { store: counting, claims, taken };
}

function worker(on: Store, minClaimIntervalMs: number, batch = 32) {
  return new WebhookWorker({
    store: on,
    sender: httpWebhookSender('slipgate-test', { adminPort: null, allowPrivate: true }),
    secrets: services.secrets,
    retry: { baseMs: 5, maxDelayMs: 60_000, windowMs: 86_400_000 },
    timeoutMs: 5_000,
    leaseMs: 60_000,
    // Only wake-ups start claims in these tests.
    pollMs: 60_000,
    batch,
    minClaimIntervalMs,
    logger: createLogger('silent'),
  });
}

/** An account with an endpoint at `receiver`, and a function writing one charged verification's event, as the settle does. */
async function accountAt(receiver: Receiver) {
  receivers.push(receiver);
  const { account } = await services.accounts.createAccount({ name: 'Claim Shop', credits: 1_000, actor: 'test' });
  const { endpoint } = await services.webhooks.add('test', account.id, { url: receiver.url });
  return async (): Promise<string> => {
    const id = `req_${Math.random().toString(36).slice(2)}`;
    await store.holdCredit({ id, accountId: account.id, keyId: 'key_test', createdAt: new Date(), instanceId: null });
    const record = { id, accountId: account.id, keyId: 'key_test', requestId: id, qrcode: 'qr', transactionId: id, amount: 1, sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: {} as never, createdAt: new Date() };
    const [delivery] = outboxRecords(verificationSucceeded(record), account.id, [endpoint.id]);
    await store.settleHold(record, [delivery!]);
    return delivery!.id;
  };
}

describe('webhook claims', () => {
  it('claims events written one after another together: at most one claim per interval, every event delivered', async () => {
    const write = await accountAt(await startReceiver(() => ({ status: 204 })));
    const { store: counting, claims } = countingClaims();
    const interval = 100;
    const w = worker(counting, interval);
    w.start();
    try {
      const started = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        ids.push(await write());
        w.wake();
        await new Promise((r) => setTimeout(r, 5));
      }
      await eventually(async () => (await Promise.all(ids.map((id) => store.getWebhookDelivery(id)))).every((d) => d?.state === 'delivered'));
      const elapsed = performance.now() - started;
      // Claiming on every wake-up would be 20 claims and more (each finished attempt wakes the worker too).
      expect(claims.length).toBeLessThan(20);
      expect(claims.length).toBeLessThanOrEqual(Math.floor(elapsed / interval) + 2);
      // Timers fire on a whole-millisecond clock: up to a millisecond or two early on performance.now().
      claims.slice(1).forEach((at, i) => expect(at - claims[i]!).toBeGreaterThanOrEqual(interval - 2));
    } finally {
      await w.stop();
    }
  });

  it('claims an event written after a quiet spell at once, without waiting out the interval', async () => {
    const write = await accountAt(await startReceiver(() => ({ status: 204 })));
    const { store: counting, claims } = countingClaims();
    const w = worker(counting, 1_000);
    w.start();
    try {
      // The claim made at start, then quiet for longer than the interval.
      await eventually(async () => claims.length === 1);
      await new Promise((r) => setTimeout(r, 1_100));
      const id = await write();
      const woken = performance.now();
      w.wake();
      await eventually(async () => (await store.getWebhookDelivery(id))?.state === 'delivered');
      expect(claims.length).toBeGreaterThanOrEqual(2);
      expect(claims[1]! - woken).toBeLessThan(500);
    } finally {
      await w.stop();
    }
  });

  it('works through a backlog larger than its slots as they free up, without waiting out the interval, taking several per claim', async () => {
    const write = await accountAt(await startReceiver(() => ({ status: 204, delayMs: 20 })));
    const ids = await Promise.all(Array.from({ length: 40 }, () => write()));
    const { store: counting, taken } = countingClaims();
    // One claim per interval would take 40 s for 40 events through 8 slots.
    const w = worker(counting, 10_000, 8);
    w.start();
    try {
      await eventually(async () => (await Promise.all(ids.map((id) => store.getWebhookDelivery(id)))).every((d) => d?.state === 'delivered'), 5_000);
      const claimed = taken.filter((n) => n > 0);
      expect(claimed.reduce((a, b) => a + b, 0)).toBe(40);
      // A quarter of the 8 slots at least, but the last (what was left).
      expect(claimed.slice(0, -1).every((n) => n >= 2)).toBe(true);
    } finally {
      await w.stop();
    }
  });
});
