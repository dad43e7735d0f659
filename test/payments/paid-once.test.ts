// One `payment_request.paid` event per paid request, ever, on every engine
// (issue 44): one slip sent three times and then twice at once for the
// request it paid made five distinct paid events. Now the resends are
// answered from the record (paid, the first answer's data, no bank call, no
// credit), and two first sends racing to the bank write and send one event.
// The outbox is read through the store, the events at a real endpoint.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { create, shop, slipFor, type Shop } from './helpers.js';

// The receiver listens on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOW_PRIVATE: 'true' };

describe.each(testEngines())('one paid event per paid request on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  /** A running slipgate on the engine with a shop, its endpoint for paid events, and a counted bank. */
  async function rig() {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const bank = counting(new SandboxUpstream());
    const app: TestApp = await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST, upstream: bank });
    let stopped = false;
    cleanup.push(() => (stopped ? Promise.resolve() : app.stop()));
    const merchant = await shop(app, 10);
    await app.webhooks.add('admin:test', merchant.accountId, { url: receiver.url, events: ['payment_request.paid'] });
    return {
      bank,
      credits: async () => (await app.store.getAccount(merchant.accountId))!.credits,
      request: async (amount: number, reference: string) => (await create(app, merchant, { amount, reference })).body.data as { id: string },
      send: (qrcode: string, id: string) => app.post({ qrcode, paymentRequest: id }, { 'x-api-key': merchant.apiKey }),
      /** Waits for the request's event at the endpoint, stops the server (every attempt recorded), then counts stored and sent events. */
      async finish(requestId: string) {
        await eventually(async () => [...paidEventsAt(receiver).values()].includes(requestId));
        const stored = (await paidEventsStored(app, merchant)).get(requestId) ?? new Set<string>();
        await app.stop();
        stopped = true;
        const sent = [...paidEventsAt(receiver)].filter(([, request]) => request === requestId).map(([eventId]) => eventId);
        return { stored: [...stored], sent };
      },
    };
  }

  it('3 sends and 2 at once of one slip: one paid event stored and sent; the resends cost no bank call, no credit', { timeout: 60_000 }, async () => {
    const r = await rig();
    const retried = await r.request(120, 'retried');
    const qrcode = slipFor({ amount: 120 });
    const first = await r.send(qrcode, retried.id);
    expect(first.body.paymentRequest).toEqual({ id: retried.id, status: 'paid' });
    const afterFirst = await r.credits();
    // The sequence: sent again twice, then twice at once, all after the first paid.
    const resends = [await r.send(qrcode, retried.id), await r.send(qrcode, retried.id), ...(await Promise.all([r.send(qrcode, retried.id), r.send(qrcode, retried.id)]))];
    for (const again of resends) {
      expect(again.status).toBe(200);
      // Answered as the original success: the same data, told paid.
      expect(again.body).toEqual({ ...first.body, paymentRequest: { id: retried.id, status: 'paid' } });
      expect(again.headers.get('x-credits-remaining')).toBe(String(afterFirst));
    }
    expect(r.bank.calls).toBe(1);
    expect(await r.credits()).toBe(afterFirst);
    const { stored, sent } = await r.finish(retried.id);
    expect(stored).toHaveLength(1);
    expect(sent).toEqual(stored);
  });

  concurrencyCase(engine)('two first sends of one slip racing to the bank: both told paid, one paid event stored and sent', { timeout: 60_000 }, async () => {
    const r = await rig();
    const raced = await r.request(130, 'raced');
    const qrcode = slipFor({ amount: 130 });
    const creditsBefore = await r.credits();
    const racing = await Promise.all([r.send(qrcode, raced.id), r.send(qrcode, raced.id)]);
    for (const a of racing) expect(a.body.paymentRequest).toEqual({ id: raced.id, status: 'paid' });
    // Each verification the bank answered is charged once (docs/payments.md); a send that found it paid costs none.
    const charged = creditsBefore - (await r.credits());
    expect(charged).toBeGreaterThanOrEqual(1);
    expect(charged).toBe(r.bank.calls);
    const { stored, sent } = await r.finish(raced.id);
    expect(stored).toHaveLength(1);
    expect(sent).toEqual(stored);
  });

  it('the resend needs no credit: with the last one spent on the payment, it is still answered paid', { timeout: 60_000 }, async () => {
    const app: TestApp = await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST });
    cleanup.push(() => app.stop());
    const merchant = await shop(app, 1);
    const request = (await create(app, merchant, { amount: 55, reference: 'last-credit' })).body.data;
    const qrcode = slipFor({ amount: 55 });
    const first = await app.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    expect(first.body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
    const again = await app.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-credits-remaining')).toBe('0');
    // Without the request it is a plain verification, which needs a credit (1023).
    expect((await app.post({ qrcode }, { 'x-api-key': merchant.apiKey })).body).toMatchObject({ code: 1023 });
  });

  it('once the paying record lost its personal data, the resend goes to the bank again: charged, told paid, no second event', { timeout: 60_000 }, async () => {
    const bank = counting(new SandboxUpstream());
    const app: TestApp = await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST, upstream: bank });
    cleanup.push(() => app.stop());
    const merchant = await shop(app, 5);
    await app.webhooks.add('admin:test', merchant.accountId, { url: 'https://shop.example/hooks', events: ['payment_request.paid'] });
    const request = (await create(app, merchant, { amount: 65, reference: 'erased' })).body.data;
    const qrcode = slipFor({ amount: 65 });
    await app.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    await app.admin.erasePersonalData('admin:test', merchant.accountId);
    const before = (await app.store.getAccount(merchant.accountId))!.credits;
    const again = await app.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    expect(again.body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
    expect(bank.calls).toBe(2);
    expect((await app.store.getAccount(merchant.accountId))!.credits).toBe(before - 1);
    expect((await paidEventsStored(app, merchant)).get(request.id)?.size).toBe(1);
  });
});

/** Paid event ids the endpoint received, each with its request. */
function paidEventsAt(receiver: Receiver): Map<string, string> {
  const events = receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'payment_request.paid');
  return new Map(events.map((e) => [e.id, e.data.id]));
}

/** The outbox as stored: the distinct paid event ids of each request. */
async function paidEventsStored(app: TestApp, merchant: Shop): Promise<Map<string, Set<string>>> {
  const byRequest = new Map<string, Set<string>>();
  for (const d of (await app.store.listWebhookDeliveries({ accountId: merchant.accountId, limit: 100 })).items) {
    if (d.type !== 'payment_request.paid') continue;
    const requestId = JSON.parse(d.body).data.id as string;
    byRequest.set(requestId, (byRequest.get(requestId) ?? new Set()).add(d.eventId));
  }
  return byRequest;
}
