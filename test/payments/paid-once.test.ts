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
import { testEngines } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { create, shop, slipFor, type Shop } from './helpers.js';

const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex') };

describe.each(testEngines())('one paid event per paid request on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  it('3 sends and 2 at once of one slip: one paid event stored and sent; the resends cost no bank call, no credit', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const bank = counting(new SandboxUpstream());
    const app: TestApp = await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST, upstream: bank });
    let stopped = false;
    cleanup.push(() => (stopped ? Promise.resolve() : app.stop()));
    const merchant = await shop(app, 10);
    await app.webhooks.add('admin:test', merchant.accountId, { url: receiver.url, events: ['payment_request.paid'] });
    const credits = async () => (await app.store.getAccount(merchant.accountId))!.credits;
    const send = (qrcode: string, id: string) => app.post({ qrcode, paymentRequest: id }, { 'x-api-key': merchant.apiKey });

    // The sequence: three sends, then two at once, all after the first paid.
    const retried = (await create(app, merchant, { amount: 120, reference: 'retried' })).body.data;
    const qrcode = slipFor({ amount: 120 });
    const first = await send(qrcode, retried.id);
    expect(first.body.paymentRequest).toEqual({ id: retried.id, status: 'paid' });
    const afterFirst = await credits();
    const resends = [await send(qrcode, retried.id), await send(qrcode, retried.id), ...(await Promise.all([send(qrcode, retried.id), send(qrcode, retried.id)]))];
    for (const again of resends) {
      expect(again.status).toBe(200);
      // Answered as the original success: the same data, told paid.
      expect(again.body).toEqual({ ...first.body, paymentRequest: { id: retried.id, status: 'paid' } });
      expect(again.headers.get('x-credits-remaining')).toBe(String(afterFirst));
    }
    expect(bank.calls).toBe(1);
    expect(await credits()).toBe(afterFirst);

    // Two first sends racing to the bank: both told paid, one event; each bank answer is charged once (see docs/payments.md).
    const raced = (await create(app, merchant, { amount: 130, reference: 'raced' })).body.data;
    const racedSlip = slipFor({ amount: 130 });
    const callsBefore = bank.calls;
    const creditsBefore = await credits();
    const racing = await Promise.all([send(racedSlip, raced.id), send(racedSlip, raced.id)]);
    for (const a of racing) expect(a.body.paymentRequest).toEqual({ id: raced.id, status: 'paid' });
    // Never more than one credit per verification that reached the bank; a send that found it paid costs none.
    const charged = creditsBefore - (await credits());
    expect(charged).toBeGreaterThanOrEqual(1);
    expect(charged).toBeLessThanOrEqual(bank.calls - callsBefore);

    await eventually(async () => paidEventsAt(receiver).size === 2);
    const stored = await paidEventsStored(app, merchant);
    // Every sent delivery finished (recorded) before the store closes.
    await app.stop();
    stopped = true;
    expect(stored.get(retried.id)?.size).toBe(1);
    expect(stored.get(raced.id)?.size).toBe(1);
    const sent = paidEventsAt(receiver);
    expect(new Set(sent.values())).toEqual(new Set([retried.id, raced.id]));
    expect(sent.size).toBe(2);
    expect([...sent.keys()].sort()).toEqual([...stored.get(retried.id)!, ...stored.get(raced.id)!].sort());
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
