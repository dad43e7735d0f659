// Webhooks end to end on every engine: a verification through the public
// route writes its event with the charge and the server's worker delivers
// it; an account without endpoints writes nothing; the plain answer is the
// same bytes either way. Then the faults: a SIGKILL between the commit and
// the delivery loses nothing, and two instances never send one delivery twice.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import { storeServices } from '../../src/compose-store.js';
import type { Store } from '../../src/domain/ports/store.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { scrape } from '../metrics/scrape.js';

// Secrets sealed under SECRETS_KEY: the worker must open them to sign.
// The receivers listen on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOW_PRIVATE: 'true' };

describe.each(testEngines())('webhooks on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });
  const track = <T extends { close?: () => Promise<unknown>; stop?: () => Promise<unknown> }>(thing: T): T => {
    cleanup.push(() => (thing.stop ?? thing.close)!.call(thing));
    return thing;
  };

  it('delivers verification.succeeded for a verified slip of a subscribed account, and nothing for others', { timeout: 30_000 }, async () => {
    const receiver = track(await startReceiver());
    const app: TestApp = track(await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST }));
    const listening = await app.account(5);
    const quiet = await app.account(5);
    const { secret } = await app.webhooks.add('admin:test', listening.accountId, { url: receiver.url });

    const qrcode = sandboxQr({ amount: 120.25 });
    const heard = await app.verify(listening.apiKey, qrcode);
    const unheard = await app.verify(quiet.apiKey, sandboxQr({ amount: 120.25 }));
    expect(heard.status).toBe(200);
    expect(unheard.status).toBe(200);
    // Opt-in: the answer carries nothing about webhooks.
    expect(Object.keys(heard.body).sort()).toEqual(Object.keys(unheard.body).sort());

    await eventually(async () => receiver.received.length === 1);
    const event = JSON.parse(receiver.received[0]!.body);
    expect(verifyWebhookSignature(receiver.received[0]!.body, String(receiver.received[0]!.headers['slipgate-signature']), secret)).toMatchObject({ ok: true });
    expect(event).toMatchObject({ type: 'verification.succeeded', data: { requestId: heard.headers.get('x-request-id'), amount: 120.25 } });
    const deliveries = await app.store.listWebhookDeliveries({ accountId: listening.accountId, limit: 10 });
    await eventually(async () => (await app.store.getWebhookDelivery(deliveries.items[0]!.id))?.state === 'delivered');
    expect(deliveries.items.map((d) => d.eventId)).toEqual([event.id]);
    expect((await scrape(app.adminUrl)).value('slipgate_webhook_attempts_total', { result: 'delivered' })).toBe(1);
    expect((await app.store.listWebhookDeliveries({ accountId: quiet.accountId, limit: 10 })).items).toEqual([]);

    // Removed: this process stops writing events for it at once (its cache is evicted).
    await app.webhooks.remove('admin:test', deliveries.items[0]!.endpointId);
    expect((await app.verify(listening.apiKey, sandboxQr({ amount: 5 }))).status).toBe(200);
    expect((await app.store.listWebhookDeliveries({ accountId: listening.accountId, limit: 10 })).items).toHaveLength(1);
  });

  it('loses no event to a SIGKILL between the commit and the delivery', { timeout: 60_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    const own: Store = await openStore(databaseUrl);
    cleanup.push(() => own.close());
    const services = storeServices(own, { allowPrivateWebhooks: true });
    const { account, apiKey } = await services.accounts.createAccount({ name: 'Kill Shop', credits: 5, actor: 'test' });
    // The endpoint takes the request and never answers: the first process dies mid-attempt.
    let answering = false;
    const receiver = track(await startReceiver(() => (answering ? { status: 200 } : 'hang')));
    await services.webhooks.add('admin:test', account.id, { url: receiver.url });
    const env = { DATABASE_URL: databaseUrl, ...FAST, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '2500' };

    const first: Child = await spawnSlipgate(env);
    cleanup.push(async () => first.proc.kill('SIGKILL'));
    const verified = await postVerify(first.publicUrl, apiKey.secret, sandboxQr({ amount: 77 }));
    expect(verified.status).toBe(200);
    await eventually(async () => receiver.received.length === 1);
    first.proc.kill('SIGKILL');
    await first.exited;
    const [sent] = receiver.received;
    const eventId = JSON.parse(sent!.body).id as string;

    answering = true;
    const second: Child = await spawnSlipgate(env);
    cleanup.push(async () => second.proc.kill('SIGKILL'));
    // Once the dead process's claim runs out, the new one sends the same event.
    await eventually(async () => (await own.listWebhookDeliveries({ accountId: account.id, limit: 10 })).items[0]?.state === 'delivered', 30_000);
    second.proc.kill('SIGTERM');
    await second.exited;
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { id: string; data: { requestId: string } });
    expect(new Set(bodies.map((b) => b.id))).toEqual(new Set([eventId]));
    expect(bodies[0]!.data.requestId).toBe(verified.requestId);
    const [delivery] = (await own.listWebhookDeliveries({ accountId: account.id, limit: 10 })).items;
    expect(delivery!.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
  });

  concurrencyCase(engine)('two instances on one database (SQLite: one file, as cluster workers share it) never both send the same delivery', { timeout: 60_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    // A slow-ish endpoint widens the window in which both look for due deliveries.
    const receiver: Receiver = track(await startReceiver(() => ({ status: 200, delayMs: 5 })));
    const env = { WEBHOOK_POLL_MS: '10', WEBHOOK_ALLOW_PRIVATE: 'true' };
    const a = track(await startApp({ databaseUrl, env }));
    const b = track(await startApp({ databaseUrl, env }));
    const { accountId, apiKey } = await a.account(60);
    await a.webhooks.add('admin:test', accountId, { url: receiver.url });
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).verify(apiKey, sandboxQr({ amount: 10 + i }))));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    await eventually(async () => receiver.received.length >= 60, 30_000);
    const all = await a.store.listWebhookDeliveries({ accountId, limit: 100 });
    await eventually(async () => (await a.store.listWebhookDeliveries({ accountId, limit: 100 })).items.every((d) => d.state === 'delivered'), 30_000);
    const sent = receiver.received.map((r) => String(r.headers['slipgate-delivery-id']));
    expect(sent).toHaveLength(60);
    expect(new Set(sent).size).toBe(60);
    expect(new Set(sent)).toEqual(new Set(all.items.map((d) => d.id)));
  });
});
