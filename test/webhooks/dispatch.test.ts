// A settle's deliveries leased to the running worker (lease(), dispatch()),
// on a real SQLite store with real receivers: sent without any claim, each
// once, through the worker's slots; and, when the worker never sends one
// (it stopped, or the lease would end before its attempt could), claimed
// and sent once by a worker after the lease ends. Claims are counted on the
// real store, as in claims.test.ts.
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import { createLogger } from '../../src/log/log.js';
import type { Store } from '../../src/domain/ports/store.js';
import { leased, outboxRecords, verificationSucceeded } from '../../src/domain/webhooks/events.js';
import type { NewWebhookDelivery } from '../../src/domain/webhooks/types.js';
import { WebhookWorker } from '../../src/domain/webhooks/worker.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { httpWebhookSender } from '../../src/webhooks/http-sender.js';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const dir = tempDir();
const store: Store = new SqliteStore(join(dir.path, 'dispatch.db'));
// The receivers listen on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const services = storeServices(store, { allowPrivateWebhooks: true });
const receivers: Receiver[] = [];
const workers: WebhookWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  for (const r of receivers.splice(0)) await r.close();
});
afterAll(async () => {
  await store.close();
  dir.remove();
});

/** The real store, counting the claims made on it. */
function counting(): { store: Store; claims: () => number } {
  let claims = 0;
  const on: Store = Object.assign(Object.create(store) as Store, {
    claimWebhookDeliveries: (q: Parameters<Store['claimWebhookDeliveries']>[0]) => {
      claims += 1;
      return store.claimWebhookDeliveries(q);
    },
  });
  return { store: on, claims: () => claims };
}

function started(on: Store, o: { batch?: number; leaseMs?: number; timeoutMs?: number; pollMs?: number } = {}): WebhookWorker {
  const w = new WebhookWorker({
    store: on,
    sender: httpWebhookSender('slipgate-test', { adminPort: null, allowPrivate: true }),
    secrets: services.secrets,
    retry: { baseMs: 5, maxDelayMs: 60_000, windowMs: 86_400_000 },
    timeoutMs: o.timeoutMs ?? 5_000,
    leaseMs: o.leaseMs ?? 60_000,
    pollMs: o.pollMs ?? 60_000,
    batch: o.batch ?? 32,
    logger: createLogger('silent'),
  });
  w.start();
  workers.push(w);
  return w;
}

/** An account with an endpoint at `receiver`; settle() writes one charged verification's event under `lease`, as the verify path does. */
async function accountAt(receiver: Receiver) {
  receivers.push(receiver);
  const { account } = await services.accounts.createAccount({ name: 'Dispatch Shop', credits: 1_000, actor: 'test' });
  const { endpoint } = await services.webhooks.add('test', account.id, { url: receiver.url });
  return async (lease: NewWebhookDelivery['lease']): Promise<NewWebhookDelivery> => {
    const id = `req_${Math.random().toString(36).slice(2)}`;
    await store.holdCredit({ id, accountId: account.id, keyId: 'key_test', createdAt: new Date(), instanceId: null });
    const record = { id, accountId: account.id, keyId: 'key_test', requestId: id, qrcode: 'qr', transactionId: id, amount: 1, sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: {} as never, createdAt: new Date() };
    const [delivery] = leased(outboxRecords(verificationSucceeded(record), account.id, [endpoint.id]), lease);
    await store.settleHold(record, [delivery!]);
    return delivery!;
  };
}

const eventIds = (r: Receiver) => r.received.map((x) => JSON.parse(x.body).id as string);
const delivered = async (ds: NewWebhookDelivery[]) => (await Promise.all(ds.map((d) => store.getWebhookDelivery(d.id)))).every((d) => d?.state === 'delivered');

describe('webhook dispatch', () => {
  it('sends deliveries leased to it at once, each once, through its slots, with no claim made for them', async () => {
    const receiver = await startReceiver(() => ({ status: 204, delayMs: 20 }));
    const settle = await accountAt(receiver);
    const { store: on, claims } = counting();
    const w = started(on, { batch: 3 });
    // The claim the worker makes when it starts, finding nothing.
    await eventually(async () => claims() === 1);
    const ds: NewWebhookDelivery[] = [];
    for (let i = 0; i < 10; i++) ds.push(await settle(w.lease()));
    expect(ds.every((d) => d.lease !== undefined)).toBe(true);
    w.dispatch(ds);
    await eventually(() => delivered(ds));
    // And one more with every slot free.
    const last = await settle(w.lease());
    w.dispatch([last]);
    await eventually(() => delivered([last]));
    await new Promise((r) => setTimeout(r, 50));
    expect(eventIds(receiver).sort()).toEqual([...ds, last].map((d) => d.eventId).sort());
    expect(claims()).toBe(1);
  });

  it('leases nothing while stopped; a leased delivery never sent is claimed and sent once after its lease ends', async () => {
    const receiver = await startReceiver();
    const settle = await accountAt(receiver);
    const first = started(store, { leaseMs: 600, timeoutMs: 100 });
    const d = await settle(first.lease());
    // Stopped between the settle and the dispatch, as a process killed there.
    await first.stop();
    expect(first.lease()).toBeUndefined();
    first.dispatch([d]);
    const other = started(store, { leaseMs: 600, timeoutMs: 100, pollMs: 20 });
    await new Promise((r) => setTimeout(r, 200));
    // Still leased to the stopped worker: nobody sent it.
    expect(receiver.received).toHaveLength(0);
    await eventually(() => delivered([d]));
    expect(Date.now()).toBeGreaterThanOrEqual(d.lease!.until.getTime());
    expect(eventIds(receiver)).toEqual([d.eventId]);
    void other;
  });

  it('leaves a waiting delivery whose lease would end before its attempt to a claim after the lease: sent once', async () => {
    // One slot; the first attempt takes most of the lease, so the second would start too late to finish within its own.
    const receiver = await startReceiver((_req, n) => ({ status: 204, delayMs: n === 1 ? 400 : 0 }));
    const settle = await accountAt(receiver);
    const w = started(store, { batch: 1, leaseMs: 500, timeoutMs: 450, pollMs: 20 });
    const ds = [await settle(w.lease()), await settle(w.lease())];
    w.dispatch(ds);
    await eventually(() => delivered(ds));
    expect(eventIds(receiver)).toEqual(ds.map((d) => d.eventId));
    // The second went out only once its lease had ended, through a claim.
    const second = await store.getWebhookDelivery(ds[1]!.id);
    expect(second!.attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(ds[1]!.lease!.until.getTime());
  });

  it('leases no more once its waiting list is full: the rest of a backlog is written unclaimed and claimed as slots free up', async () => {
    const receiver = await startReceiver(() => ({ status: 204, delayMs: 100 }));
    const settle = await accountAt(receiver);
    // One slot, so at most 8 wait; a lease of a minute would hold any delivery dropped from memory that long.
    const w = started(store, { batch: 1 });
    const ds: NewWebhookDelivery[] = [];
    for (let i = 0; i < 12; i++) {
      const d = await settle(w.lease());
      w.dispatch([d]);
      ds.push(d);
    }
    expect(ds.map((d) => d.lease !== undefined)).toEqual([...Array(9).fill(true), false, false, false]);
    await eventually(() => delivered(ds));
    expect(eventIds(receiver).sort()).toEqual(ds.map((d) => d.eventId).sort());
  });

  it('frees an attempt\'s slot when its answer is in, not when its record is written (records may wait for a batch)', async () => {
    const receiver = await startReceiver();
    const settle = await accountAt(receiver);
    let release!: () => void;
    let held = new Promise<void>((resolve) => (release = resolve));
    // The real store, with every record held back until released.
    const slow: Store = Object.assign(Object.create(store) as Store, {
      finishWebhookAttempt: async (...args: Parameters<Store['finishWebhookAttempt']>) => {
        await held;
        return store.finishWebhookAttempt(...args);
      },
    });
    const w = started(slow, { batch: 1 });
    const ds = [await settle(w.lease()), await settle(w.lease()), await settle(w.lease())];
    w.dispatch(ds);
    // One slot, yet all three are sent while no record is written.
    await eventually(async () => receiver.received.length === 3);
    expect(await delivered(ds)).toBe(false);
    release();
    await eventually(() => delivered(ds));
    // stop() waits for the records too.
    held = new Promise<void>((resolve) => (release = resolve));
    const stopping = started(slow, { batch: 1 });
    const late = await settle(stopping.lease());
    stopping.dispatch([late]);
    await eventually(async () => receiver.received.length === 4);
    const stopped = stopping.stop();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await stopped;
    expect(await delivered([late])).toBe(true);
  });
});
