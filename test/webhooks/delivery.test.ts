// The delivery worker against real local receivers, on a real SQLite store:
// what each kind of answer does to a delivery (delivered, retried, when,
// given up), what is sent (the body as written, Stripe's signature scheme),
// and that an attempt is recorded whatever happens.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { storeServices } from '../../src/compose-store.js';
import { createLogger } from '../../src/log/log.js';
import type { Store } from '../../src/domain/ports/store.js';
import { bangkokIsoTime } from '../../src/domain/bangkok-time.js';
import { outboxRecords, verificationSucceeded } from '../../src/domain/webhooks/events.js';
import type { RetryPolicy } from '../../src/domain/webhooks/retry.js';
import type { WebhookDelivery } from '../../src/domain/webhooks/types.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../src/domain/webhooks/worker.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { httpWebhookSender, NO_ANSWER } from '../../src/webhooks/http-sender.js';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const dir = tempDir();
const store: Store = new SqliteStore(join(dir.path, 'hooks.db'));
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

const FAST: RetryPolicy = { baseMs: 5, maxDelayMs: 7 * 86_400_000, windowMs: 86_400_000 };

function worker(over: { retry?: RetryPolicy; timeoutMs?: number; logger?: WebhookWorkerOptions['logger'] } = {}) {
  return new WebhookWorker({
    store,
    sender: httpWebhookSender('slipgate-test', { adminPort: null, allowPrivate: true }),
    secrets: services.secrets,
    retry: over.retry ?? FAST,
    timeoutMs: over.timeoutMs ?? 5_000,
    leaseMs: 60_000,
    pollMs: 10,
    batch: 1000,
    logger: over.logger ?? createLogger('silent'),
  });
}

/** An account with an endpoint at `receiver`, and one charged verification that announced itself. */
async function eventFor(receiver: Receiver) {
  receivers.push(receiver);
  const { account } = await services.accounts.createAccount({ name: 'Hook Shop', credits: 1, actor: 'test' });
  const { endpoint, secret } = await services.webhooks.add('test', account.id, { url: receiver.url });
  const holdId = `req_${Math.random().toString(36).slice(2)}`;
  await store.holdCredit({ id: holdId, accountId: account.id, keyId: 'key_test', createdAt: new Date(), instanceId: null });
  const record = {
    id: holdId,
    accountId: account.id,
    keyId: 'key_test',
    requestId: holdId,
    qrcode: 'qr',
    transactionId: 'TX1',
    amount: 250.5,
    sendingBank: '004',
    receivingBank: '014',
    upstream: 'sandbox',
    latencyMs: 1,
    response: {} as never,
    createdAt: new Date(),
  };
  const [delivery] = outboxRecords(verificationSucceeded(record), account.id, [endpoint.id]);
  await store.settleHold(record, [delivery!]);
  return { delivery: delivery!, secret, record };
}

/** Runs the worker's claim-and-send until `done` says so (each pass sends what is due). */
async function deliverUntil(w: WebhookWorker, id: string, done: (d: WebhookDelivery) => boolean): Promise<WebhookDelivery> {
  let last: WebhookDelivery | null = null;
  await eventually(async () => {
    await w.deliverDue();
    last = await store.getWebhookDelivery(id);
    return last !== null && done(last);
  });
  return last!;
}

describe('webhook delivery', () => {
  it('POSTs the event as written, signed with the endpoint secret (t=…,v1=HMAC-SHA256 of "t.body"), and records the 2xx', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    const { delivery, secret, record } = await eventFor(receiver);
    const done = await deliverUntil(worker(), delivery.id, (d) => d.state === 'delivered');
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.body).toBe(delivery.body);
    const event = JSON.parse(got.body);
    expect(event).toEqual({
      id: delivery.eventId,
      type: 'verification.succeeded',
      createdAt: bangkokIsoTime(record.createdAt.getTime()),
      data: { verificationId: record.id, requestId: record.requestId, transactionId: 'TX1', amount: 250.5, sendingBank: '004', receivingBank: '014', source: 'qrcode', verifiedAt: bangkokIsoTime(record.createdAt.getTime()) },
    });
    expect(event.id).toMatch(/^evt_/);
    // The signature, computed independently from the raw body.
    const header = String(got.headers['slipgate-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${got.body}`).digest('hex'));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['slipgate-event-id']).toBe(delivery.eventId);
    expect(done.attempts).toEqual([expect.objectContaining({ statusCode: 204, error: null })]);
    expect(done.deliveredAt).toBeInstanceOf(Date);
  });

  it("signs each endpoint's events with its own secret, first and again, when one worker delivers to both (opened secrets are kept per endpoint)", async () => {
    const w = worker();
    const one = await eventFor(await startReceiver(() => ({ status: 204 })));
    const two = await eventFor(await startReceiver(() => ({ status: 204 })));
    await deliverUntil(w, one.delivery.id, (d) => d.state === 'delivered');
    await deliverUntil(w, two.delivery.id, (d) => d.state === 'delivered');
    await services.webhooks.redeliver('admin:test', one.delivery.id);
    await deliverUntil(w, one.delivery.id, (d) => d.attempts.length === 2);
    const [first, second] = receivers.slice(-2);
    expect([first!.received.length, second!.received.length]).toEqual([2, 1]);
    for (const [receiver, secret] of [[first!, one.secret], [second!, two.secret]] as const) {
      for (const got of receiver.received) {
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['slipgate-signature'])) ?? [];
        expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${got.body}`).digest('hex'));
      }
    }
  });

  it('retries a 500 with backoff until the endpoint answers 2xx, the same event each time', async () => {
    const receiver = await startReceiver((_req, n) => ({ status: n <= 2 ? 500 : 200 }));
    const { delivery } = await eventFor(receiver);
    const done = await deliverUntil(worker(), delivery.id, (d) => d.state === 'delivered');
    expect(done.attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [500, 'HTTP 500'],
      [500, 'HTTP 500'],
      [200, null],
    ]);
    expect(new Set(receiver.received.map((r) => r.body))).toEqual(new Set([delivery.body]));
    expect(new Set(receiver.received.map((r) => r.headers['slipgate-event-id']))).toEqual(new Set([delivery.eventId]));
  });

  it('logs each failed attempt at warn (the default level shows it): endpoint, event type, attempt, status; never the URL, secret or body', async () => {
    const receiver = await startReceiver((_req, n) => ({ status: n <= 2 ? 503 : 200 }));
    receiver.url = `${receiver.url}/hooks/tok_pathsecret?key=querysecret`;
    const { delivery, secret } = await eventFor(receiver);
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) });
    const logger = createLogger(loadConfig({}).LOG_LEVEL, sink);
    const done = await deliverUntil(worker({ logger }), delivery.id, (d) => d.state === 'delivered');
    expect(done.attempts).toHaveLength(3);
    const failed = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'webhook attempt failed; it will be tried again');
    expect(failed).toEqual([1, 2].map((attempt) => expect.objectContaining({ level: 40, endpointId: delivery.endpointId, eventType: 'verification.succeeded', eventId: delivery.eventId, deliveryId: delivery.id, attempt, status: 503, error: 'HTTP 503' })));
    const all = lines.join('\n');
    for (const secretPart of ['pathsecret', 'querysecret', secret, delivery.body, 'TX1']) expect(all).not.toContain(secretPart);
  });

  it('does not follow a redirect: the attempt fails and the target is never called', async () => {
    const target = await startReceiver(() => ({ status: 200 }));
    receivers.push(target);
    const receiver = await startReceiver(() => ({ status: 302, headers: { location: target.url } }));
    const { delivery } = await eventFor(receiver);
    const after = await deliverUntil(worker(), delivery.id, (d) => d.attempts.length >= 1);
    expect(after.state).toBe('pending');
    expect(after.attempts[0]).toMatchObject({ statusCode: 302, error: 'HTTP 302: redirects are not followed' });
    expect(target.received).toEqual([]);
  });

  it('gives up on an endpoint that never answers after the timeout, and tries again later', async () => {
    const receiver = await startReceiver(() => 'hang');
    const { delivery } = await eventFor(receiver);
    // The cause goes to the operator's log at debug only; the recorded error is the generic one.
    const debug: { fields: object; message: string }[] = [];
    const logger = { error() {}, warn() {}, debug: (fields: object, message: string) => void debug.push({ fields, message }) };
    const after = await deliverUntil(worker({ timeoutMs: 200, logger }), delivery.id, (d) => d.attempts.length >= 1);
    expect(after.state).toBe('pending');
    expect(after.attempts[0]).toMatchObject({ statusCode: null, error: NO_ANSWER });
    expect(debug).toContainEqual({ fields: { deliveryId: delivery.id, endpointId: delivery.endpointId, detail: 'timed out: no answer within the delivery timeout' }, message: 'webhook attempt: no answer' });
  });

  it('waits for a slow answer within the timeout', async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    const { delivery } = await eventFor(receiver);
    const done = await deliverUntil(worker({ timeoutMs: 5_000 }), delivery.id, (d) => d.attempts.length >= 1);
    expect(done).toMatchObject({ state: 'delivered', attempts: [{ statusCode: 200, error: null }] });
  });

  it("honours Retry-After: the next attempt is when the endpoint asked, not the backoff's few milliseconds", async () => {
    const receiver = await startReceiver(() => ({ status: 503, headers: { 'retry-after': '3600' } }));
    const { delivery } = await eventFor(receiver);
    const after = await deliverUntil(worker(), delivery.id, (d) => d.attempts.length >= 1);
    expect(after.state).toBe('pending');
    expect(after.nextAttemptAt.getTime() - after.attempts[0]!.at.getTime()).toBe(3_600_000);
  });

  it('fails the delivery once the retry window has passed, and redelivers it on demand', async () => {
    let up = false;
    const receiver = await startReceiver(() => ({ status: up ? 200 : 500 }));
    const { delivery } = await eventFor(receiver);
    const w = worker({ retry: { baseMs: 5, maxDelayMs: 20, windowMs: 150 } });
    const failed = await deliverUntil(w, delivery.id, (d) => d.state === 'failed');
    expect(failed.attempts.length).toBeGreaterThanOrEqual(2);
    expect(failed.attempts.every((a) => a.statusCode === 500)).toBe(true);
    up = true;
    await services.webhooks.redeliver('admin:test', delivery.id, 'endpoint fixed');
    const done = await deliverUntil(w, delivery.id, (d) => d.state === 'delivered');
    expect(done.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
    expect((await store.listAdminEvents({ targetId: delivery.id, limit: 5 })).items).toEqual([
      expect.objectContaining({ actor: 'admin:test', action: 'redeliverWebhook', reason: 'endpoint fixed' }),
    ]);
  });

  it('running, it keeps other deliveries going while one endpoint does not answer', async () => {
    const silent = await startReceiver(() => 'hang');
    const fast = await startReceiver(() => ({ status: 204 }));
    const w = worker({ timeoutMs: 30_000 });
    w.start();
    try {
      const stuck = await eventFor(silent);
      await eventually(async () => silent.received.length === 1);
      const { delivery } = await eventFor(fast);
      w.wake();
      await eventually(async () => (await store.getWebhookDelivery(delivery.id))?.state === 'delivered');
      // Delivered while the silent endpoint still holds its own attempt, unanswered.
      expect((await store.getWebhookDelivery(stuck.delivery.id))?.attempts).toEqual([]);
    } finally {
      await silent.close();
      await w.stop();
    }
  });

  it('fails the deliveries of a removed endpoint without calling it', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const { delivery } = await eventFor(receiver);
    await services.webhooks.remove('admin:test', delivery.endpointId);
    const after = await deliverUntil(worker(), delivery.id, (d) => d.state !== 'pending');
    expect(after).toMatchObject({ state: 'failed', attempts: [{ statusCode: null, error: 'the endpoint was removed' }] });
    expect(receiver.received).toEqual([]);
  });
});
