// The payment flow end to end on every engine: create, pay through verify,
// the signed payment_request.paid webhook; expiry on the server marks a due
// request expired and sends payment_request.expired. Time decides by the
// transfer: a slip transferred inside the window pays the expired request
// whenever it is verified; one transferred after expiry is refused
// `expired` and raises payment_request.late_transfer. The verification's
// record keeps the verdict either way.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import type { PaymentRequest } from '../../src/domain/payments/types.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { testEngines } from '../helpers/engines.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { call, create, PATH, shop, slipFor } from './helpers.js';

// The receiver listens on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOW_PRIVATE: 'true' };

describe.each(testEngines())('payment requests on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  it('pays, sends payment_request.paid; expires, sends payment_request.expired; an in-time slip checked late pays, a late transfer is announced', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const app: TestApp = await startApp({ databaseUrl: await engine.databaseUrl(), env: FAST });
    cleanup.push(() => app.stop());
    const merchant = await shop(app, 10);
    const { secret } = await app.webhooks.add('admin:test', merchant.accountId, { url: receiver.url, events: ['payment_request.paid', 'payment_request.expired', 'payment_request.late_transfer'] });

    const request = (await create(app, merchant, { amount: 480.5, reference: 'order-9' })).body.data;
    const paid = await app.post({ qrcode: slipFor({ amount: 480.5 }), paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    expect(paid.body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
    await eventually(async () => receiver.received.length === 1);
    const delivery = receiver.received[0]!;
    expect(verifyWebhookSignature(delivery.body, String(delivery.headers['slipgate-signature']), secret)).toMatchObject({ ok: true });
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({
      type: 'payment_request.paid',
      data: { id: request.id, reference: 'order-9', amount: 480.5, status: 'paid', paidBy: { transactionId: paid.body.data.transactionId, amount: 480.5 } },
    });

    // A request already past its expiry (made through the store: the API's shortest is a minute).
    const createdAt = new Date(Date.now() - 20 * 60_000);
    const due: PaymentRequest = { ...toStored(request, merchant.accountId), id: `pr_${randomBytes(16).toString('hex')}`, reference: 'order-10', createdAt, expiresAt: new Date(createdAt.getTime() + 10 * 60_000) };
    await app.store.createPaymentRequest(due);
    expect(await app.paymentExpiry.runOnce()).toBe(1);
    expect((await call(app, 'GET', `${PATH}/${due.id}`, merchant.apiKey)).body.data.status).toBe('expired');
    await eventually(async () => receiver.received.length === 2);
    expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({ type: 'payment_request.expired', data: { id: due.id, status: 'expired' } });
    expect(await app.paymentExpiry.runOnce()).toBe(0);

    // The slip is checked after the sweep but was transferred inside the window: it pays the expired request.
    const before = (await app.store.getAccount(merchant.accountId))!.credits;
    const inTime = await app.post({ qrcode: slipFor({ amount: 480.5, paidAt: new Date(createdAt.getTime() + 60_000) }), paymentRequest: due.id }, { 'x-api-key': merchant.apiKey });
    expect(inTime.body.status).toBe('success');
    expect(inTime.body.paymentRequest).toEqual({ id: due.id, status: 'paid' });
    expect((await app.store.getAccount(merchant.accountId))!.credits).toBe(before - 1);
    expect((await call(app, 'GET', `${PATH}/${due.id}`, merchant.apiKey)).body.data).toMatchObject({ status: 'paid', paidBy: { transactionId: inTime.body.data.transactionId } });
    await eventually(async () => receiver.received.length === 3);
    expect(JSON.parse(receiver.received[2]!.body)).toMatchObject({ type: 'payment_request.paid', data: { id: due.id, status: 'paid' } });
    expect(await recorded(app, inTime.body.data.transactionId)).toEqual({ requestId: due.id, status: 'paid', reason: null });

    // A transfer after expiry: verified and charged, refused `expired`, announced for the shop to refund or honour.
    const lateDue: PaymentRequest = { ...due, id: `pr_${randomBytes(16).toString('hex')}`, reference: 'order-11' };
    await app.store.createPaymentRequest(lateDue);
    expect(await app.paymentExpiry.runOnce()).toBe(1);
    await eventually(async () => receiver.received.length === 4);
    const lateSlip = slipFor({ amount: 480.5, paidAt: new Date(lateDue.expiresAt.getTime() + 60_000) });
    const late = await app.post({ qrcode: lateSlip, paymentRequest: lateDue.id }, { 'x-api-key': merchant.apiKey });
    expect(late.body.status).toBe('success');
    expect(late.body.paymentRequest).toEqual({ id: lateDue.id, status: 'expired', reason: 'expired' });
    expect((await call(app, 'GET', `${PATH}/${lateDue.id}`, merchant.apiKey)).body.data.status).toBe('expired');
    expect(await recorded(app, late.body.data.transactionId)).toEqual({ requestId: lateDue.id, status: 'expired', reason: 'expired' });
    await eventually(async () => receiver.received.length === 5);
    const announced = JSON.parse(receiver.received[4]!.body);
    expect(announced).toMatchObject({
      type: 'payment_request.late_transfer',
      data: { id: lateDue.id, status: 'expired', transfer: { transactionId: late.body.data.transactionId, amount: 480.5 } },
    });
    // The same late slip sent again for its request is answered from its record: no bank, no credit, no second event.
    const creditsBefore = (await app.store.getAccount(merchant.accountId))!.credits;
    const again = await app.post({ qrcode: lateSlip, paymentRequest: lateDue.id }, { 'x-api-key': merchant.apiKey });
    expect(again.body.paymentRequest).toEqual({ id: lateDue.id, status: 'expired', reason: 'expired' });
    expect(again.body.data.transactionId).toBe(late.body.data.transactionId);
    expect((await app.store.getAccount(merchant.accountId))!.credits).toBe(creditsBefore);
    expect((await app.store.listVerifyTransactions({ transactionId: late.body.data.transactionId, limit: 5 })).items).toHaveLength(1);
  });
});

/** The payment verdict kept with the verification of a slip. */
async function recorded(app: TestApp, transactionId: string) {
  const page = await app.store.listVerifyTransactions({ transactionId, limit: 5 });
  return page.items[0]?.payment;
}

/** The stored form of a request as the API showed it (for a copy with other times). */
function toStored(shown: { id: string; reference: string; promptpay: string; receiver: string }, accountId: string): PaymentRequest {
  return {
    id: shown.id,
    accountId,
    receiverId: shown.receiver,
    target: { kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: null, nameEn: 'SOMCHAI JAIDEE' },
    reference: shown.reference,
    amount: 48_050,
    requestedAmount: 48_050,
    uniqueAmount: false,
    promptpay: shown.promptpay,
    status: 'pending',
    createdAt: new Date(),
    expiresAt: new Date(),
    paidAt: null,
    paidBy: null,
    closedAt: null,
    successUrl: null,
  };
}
