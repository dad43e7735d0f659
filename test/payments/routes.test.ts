// The payment request routes on a running slipgate: create (the PromptPay
// payload read back by promptparse and by a banking app's rules), the same
// reference again, reads, cancel, the QR pictures, bad input, and another
// account's request as 404.
import { parse } from 'promptparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { readPromptPay } from '../helpers/emvco.js';
import { call, create, PATH, shop, type Shop } from './helpers.js';

const BANGKOK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+07:00$/;

describe('payment request routes', () => {
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp();
    merchant = await shop(app);
  });
  afterAll(() => app?.stop());

  it('creates a pending request whose dynamic PromptPay QR names the receiver and the amount, for no credit', async () => {
    const res = await create(app, merchant, { amount: '250.00', reference: 'order-1', expiresInMinutes: 30 });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(res.body.status).toBe('success');
    expect(data).toMatchObject({ reference: 'order-1', amount: 250, status: 'pending', receiver: merchant.receiverId, paidAt: null, paidBy: null });
    expect(data.id).toMatch(/^pr_[0-9a-f]{32}$/);
    expect(data.expiresAt).toMatch(BANGKOK);
    expect(Date.parse(data.expiresAt) - Date.parse(data.createdAt)).toBe(30 * 60_000);
    // promptparse reads it back …
    const tlv = parse(data.promptpay, true)!;
    expect(tlv.getTagValue('29', '01')).toBe('0066812345678');
    expect(tlv.getTagValue('54')).toBe('250.00');
    // … and so does a banking app's reading, CRC included.
    expect(readPromptPay(data.promptpay)).toEqual({ crcOk: true, dynamic: true, proxyType: '01', target: '0066812345678', amount: '250.00', currency: '764' });
    expect((await app.store.getAccount(merchant.accountId))?.credits).toBe(10);
  });

  it('answers the same reference with the first request (200), never a second one', async () => {
    const first = await create(app, merchant, { amount: 99, reference: 'order-2' });
    const again = await create(app, merchant, { amount: 120, reference: 'order-2', expiresInMinutes: 5 });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('reads by id and by reference; another account gets 404 for both', async () => {
    const made = (await create(app, merchant, { amount: 10.5, reference: 'order-3' })).body.data;
    expect((await call(app, 'GET', `${PATH}/${made.id}`, merchant.apiKey)).body).toEqual({ status: 'success', data: made });
    expect((await call(app, 'GET', `${PATH}?reference=order-3`, merchant.apiKey)).body).toEqual({ status: 'success', data: made });
    const other = await shop(app, 1, '0899999999');
    expect(await call(app, 'GET', `${PATH}/${made.id}`, other.apiKey)).toMatchObject({ status: 404, body: { status: 'error', message: 'payment request not found' } });
    expect((await call(app, 'GET', `${PATH}?reference=order-3`, other.apiKey)).status).toBe(404);
    expect((await call(app, 'POST', `${PATH}/${made.id}/cancel`, other.apiKey)).status).toBe(404);
    expect((await call(app, 'GET', `${PATH}/${made.id}/qr.png`, other.apiKey)).status).toBe(404);
    expect((await call(app, 'GET', `${PATH}/pr_nope`, merchant.apiKey)).status).toBe(404);
  });

  it('cancels a pending request; cancelling it again answers it as it is', async () => {
    const made = (await create(app, merchant, { amount: 42, reference: 'order-4' })).body.data;
    const cancelled = await call(app, 'POST', `${PATH}/${made.id}/cancel`, merchant.apiKey);
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'success', data: { id: made.id, status: 'cancelled' } } });
    expect((await call(app, 'POST', `${PATH}/${made.id}/cancel`, merchant.apiKey)).body).toEqual(cancelled.body);
    expect((await call(app, 'GET', `${PATH}/${made.id}`, merchant.apiKey)).body.data.status).toBe('cancelled');
  });

  it('serves the QR as PNG and SVG, and the PNG reads back as the payload', async () => {
    const made = (await create(app, merchant, { amount: 75.25, reference: 'order-5' })).body.data;
    const png = await call(app, 'GET', `${PATH}/${made.id}/qr.png`, merchant.apiKey);
    expect(png.status).toBe(200);
    expect(png.type).toBe('image/png');
    expect(await decodeSlipImage(png.bytes)).toBe(made.promptpay);
    const svg = await call(app, 'GET', `${PATH}/${made.id}/qr.svg`, merchant.apiKey);
    expect(svg.type).toMatch(/^image\/svg\+xml/);
    expect(svg.bytes.toString()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('refuses bad input with a clear 400 and creates nothing', async () => {
    const bad: [unknown, string][] = [
      [{ amount: 0, reference: 'b1' }, 'amount must be a positive number'],
      [{ amount: -5, reference: 'b1' }, 'amount must be a positive number'],
      [{ amount: '1.234', reference: 'b1' }, 'at most 2 decimals'],
      [{ amount: 10_000_000_000, reference: 'b1' }, "a PromptPay QR's maximum"],
      [{ amount: 10, reference: 'x'.repeat(129) }, 'reference must be 1 to 128 characters'],
      [{ amount: 10, reference: 'a\nb' }, 'without control characters'],
      [{ amount: 10, reference: 'b1', expiresInMinutes: 0 }, 'expiresInMinutes must be a whole number from 1 to 1440'],
      [{ amount: 10, reference: 'b1', expiresInMinutes: 1441 }, 'expiresInMinutes must be a whole number from 1 to 1440'],
      [{ amount: 10, reference: 'b1', receiver: 'rcv_unknown' }, 'is not an active PromptPay receiver of this account'],
      [{ amount: 10, reference: 'b1', color: 'red' }, 'unknown field "color"'],
      [{ reference: 'b1' }, 'amount must be a positive number'],
      ['[1]', 'request body must be a JSON object'],
      ['{"amount":', 'request body is not valid JSON'],
    ];
    for (const [body, message] of bad) {
      const res = await create(app, merchant, body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toContain(message);
    }
    expect((await call(app, 'GET', `${PATH}?reference=b1`, merchant.apiKey)).status).toBe(404);
  });

  it('asks which receiver when the account has none or several PromptPay receivers', async () => {
    const { apiKey, accountId } = await app.account(1);
    const none = await create(app, { apiKey, accountId, receiverId: '' }, { amount: 10, reference: 'r1' });
    expect(none).toMatchObject({ status: 400, body: { message: expect.stringContaining('no active PromptPay receiver') } });
    await app.admin.addReceiver('test', { accountId, promptPay: '0811111111', nameEn: 'A SHOP' });
    const second = await app.admin.addReceiver('test', { accountId, promptPay: '0822222222', nameEn: 'B SHOP' });
    expect((await create(app, { apiKey, accountId, receiverId: '' }, { amount: 10, reference: 'r1' })).body.message).toContain('several active PromptPay receivers');
    const named = await create(app, { apiKey, accountId, receiverId: '' }, { amount: 10, reference: 'r1', receiver: second.id });
    expect(named.body.data.receiver).toBe(second.id);
  });

  it('uses the verify route\'s key errors and codes', async () => {
    expect(await call(app, 'POST', PATH, null, { amount: 1, reference: 'k' })).toMatchObject({ status: 401, body: { status: 'error', code: 1020, message: 'api key is missing' } });
    expect(await call(app, 'GET', `${PATH}?reference=k`, 'sk_wrong')).toMatchObject({ status: 401, body: { status: 'error', code: 1021, message: 'invalid api key' } });
    const gone = await shop(app, 1, '0833333333');
    await app.admin.deleteAccount('test', gone.accountId);
    expect(await create(app, gone, { amount: 1, reference: 'k' })).toMatchObject({ status: 400, body: { code: 1022 } });
  });

  it('adds satang under the unique-amount setting: two pending requests of one receiver never share an amount', async () => {
    const unique = await shop(app, 1, '0844444444');
    await app.store.setUniquePaymentAmounts(unique.accountId, true);
    const made = await Promise.all([1, 2, 3, 4, 5].map((n) => create(app, unique, { amount: 100, reference: `u${n}` })));
    const amounts = made.map((r) => r.body.data.amount);
    expect(new Set(amounts).size).toBe(5);
    for (const r of made) {
      expect(r.body.data.requestedAmount).toBe(100);
      expect(r.body.data.amount).toBeGreaterThan(100);
      expect(r.body.data.amount).toBeLessThan(101);
      expect(readPromptPay(r.body.data.promptpay).amount).toBe(r.body.data.amount.toFixed(2));
    }
  });
});
