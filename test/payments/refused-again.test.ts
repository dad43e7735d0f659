// The same slip sent again for a payment request it was verified for, but
// did not pay, is answered from its record (issue 61, item 4): a ฿349.00
// slip for a ฿349.50 order is charged once, on the checkout page and on the
// API's `paymentRequest`, with no second bank call. The plain verify route
// keeps the contract's "no idempotency": it asks the bank and charges again.
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { create, shop, slipFor, type Shop } from './helpers.js';

const PUBLIC_URL = 'https://pay.example.com';

describe('a refused slip sent again for the same request', () => {
  let app: TestApp;
  let merchant: Shop;
  const bank = counting(new SandboxUpstream());
  beforeAll(async () => {
    app = await startApp({ env: { PUBLIC_URL: `${PUBLIC_URL}/`, SECRETS_KEY: 'b'.repeat(64), CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100' }, upstream: bank });
    merchant = await shop(app, 20);
  });
  afterAll(() => app?.stop());

  const credits = async () => (await app.store.getAccount(merchant.accountId))!.credits;
  const upload = async (checkoutUrl: string, qrcode: string) => {
    const form = new FormData();
    const png = await QRCode.toBuffer(qrcode, { type: 'png', width: 360, margin: 4 });
    form.append('slip', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'slip.png');
    return fetch(`${app.publicUrl}${checkoutUrl.slice(PUBLIC_URL.length)}?lang=en`, { method: 'POST', body: form, redirect: 'manual' });
  };

  it('checkout page: the second upload of a ฿349.00 slip for a ฿349.50 order costs no credit and no bank call', async () => {
    const order = (await create(app, merchant, { amount: 349.5, reference: 'co-349' })).body.data as { id: string; checkoutUrl: string };
    const qrcode = slipFor({ amount: 349 });
    const [creditsBefore, callsBefore] = [await credits(), bank.calls];
    const first = await upload(order.checkoutUrl, qrcode);
    expect(first.status).toBe(422);
    const firstPage = await first.text();
    expect(firstPage).toContain('another amount');
    expect([await credits(), bank.calls]).toEqual([creditsBefore - 1, callsBefore + 1]);

    const again = await upload(order.checkoutUrl, qrcode);
    expect(again.status).toBe(422);
    expect(await again.text()).toContain('another amount');
    expect([await credits(), bank.calls]).toEqual([creditsBefore - 1, callsBefore + 1]);
    expect((await app.store.getPaymentRequest(order.id))!.status).toBe('pending');
  });

  it('API with paymentRequest: the same answer and verdict again, free; the plain route still asks the bank and charges', async () => {
    const order = (await create(app, merchant, { amount: 349.5, reference: 'api-349' })).body.data as { id: string };
    const qrcode = slipFor({ amount: 349 });
    const send = (body: Record<string, unknown>) => app.post({ qrcode, ...body }, { 'x-api-key': merchant.apiKey });
    const [creditsBefore, callsBefore] = [await credits(), bank.calls];
    const first = await send({ paymentRequest: order.id });
    expect(first.body.paymentRequest).toEqual({ id: order.id, status: 'pending', reason: 'amount_mismatch' });
    expect([await credits(), bank.calls]).toEqual([creditsBefore - 1, callsBefore + 1]);

    const again = await send({ paymentRequest: order.id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('x-credits-remaining')).toBe(String(creditsBefore - 1));
    expect([await credits(), bank.calls]).toEqual([creditsBefore - 1, callsBefore + 1]);

    const plain = await send({});
    expect(plain.body.status).toBe('success');
    expect([await credits(), bank.calls]).toEqual([creditsBefore - 2, callsBefore + 2]);
  });
});
