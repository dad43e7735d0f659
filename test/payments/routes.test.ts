// The payment request routes on a running slipgate: create (the PromptPay
// payload read back by promptparse and by a banking app's rules), the same
// reference again (the same body: the first request; another: 409 / 1026),
// reads, cancel, the QR pictures, bad input, and another account's request
// as 404.
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

  it('answers the same reference and body with the first request (200), never a second one', async () => {
    const first = await create(app, merchant, { amount: 99, reference: 'order-2' });
    expect(first.status).toBe(201);
    // Omitted fields compare as the create resolves them: 30 minutes, the account's one receiver.
    for (const body of [
      { amount: 99, reference: 'order-2' },
      { amount: '99.00', reference: 'order-2', expiresInMinutes: 30 },
      { amount: 99, reference: 'order-2', receiver: merchant.receiverId },
    ]) {
      const again = await create(app, merchant, body);
      expect(again.status, JSON.stringify(body)).toBe(200);
      expect(again.body).toEqual(first.body);
    }
  });

  it('answers the same reference with another amount, expiry or receiver 409 / 1026, and changes nothing', async () => {
    const s = await shop(app, 1, '0811111111');
    const first = await create(app, s, { amount: 99, reference: 'reused', expiresInMinutes: 10 });
    expect(first.status).toBe(201);
    const other = await app.admin.addReceiver('test', { accountId: s.accountId, promptPay: '0822222222', nameEn: 'OTHER SHOP' });
    for (const body of [
      { amount: 120, reference: 'reused', expiresInMinutes: 10, receiver: s.receiverId },
      { amount: 99, reference: 'reused', receiver: s.receiverId },
      { amount: 99, reference: 'reused', expiresInMinutes: 10, receiver: other.id },
    ]) {
      const again = await create(app, s, body);
      expect(again.status, JSON.stringify(body)).toBe(409);
      expect(again.body).toEqual({ status: 'error', code: 1026, message: 'reference already used' });
    }
    expect((await call(app, 'GET', `${PATH}?reference=reused`, s.apiKey)).body).toEqual(first.body);
    expect((await app.store.listPaymentRequests({ accountId: s.accountId, limit: 10 })).items).toHaveLength(1);
    // The first body again, naming no receiver: the account has two now, so there is nothing to compare (a retry, not a new order).
    expect((await create(app, s, { amount: 99, reference: 'reused', expiresInMinutes: 10 })).body).toEqual(first.body);
  });

  it('two creates of one reference at once with different bodies: one 201, the other 409', async () => {
    const s = await shop(app, 1, '0833333333');
    for (let round = 0; round < 5; round++) {
      const reference = `race-${round}`;
      const answers = await Promise.all([create(app, s, { amount: 10, reference }), create(app, s, { amount: 20, reference })]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const made = answers.find((a) => a.status === 201)!.body;
      expect((await call(app, 'GET', `${PATH}?reference=${reference}`, s.apiKey)).body).toEqual(made);
    }
  });

  it('a receiver removed and added again (a name fixed) is still the same receiver for a retried create', async () => {
    const s = await shop(app, 1, '0844444444');
    const first = await create(app, s, { amount: 50, reference: 'kept' });
    await app.admin.removeReceiver('test', s.receiverId);
    const again = await app.admin.addReceiver('test', { accountId: s.accountId, promptPay: '0844444444', nameEn: 'SOMCHAI JAIDEE CO' });
    expect((await create(app, s, { amount: 50, reference: 'kept' })).body).toEqual(first.body);
    expect((await create(app, s, { amount: 50, reference: 'kept', receiver: again.id })).status).toBe(200);
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
