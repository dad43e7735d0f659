// Paying a payment request through POST /api/v1/verify on a running
// slipgate: the slip pays it (charged as any success), or the answer says
// why not; a bad paymentRequest is a 400 before any credit is held; without
// paymentRequest the answer is unchanged; races pay once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH, shop, slipFor, type Shop } from './helpers.js';

describe('paying a payment request with a verified slip', () => {
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp();
    merchant = await shop(app, 100);
  });
  afterAll(() => app?.stop());

  const pay = (s: Shop, qrcode: string, paymentRequest?: unknown) => app.post({ qrcode, ...(paymentRequest === undefined ? {} : { paymentRequest }) }, { 'x-api-key': s.apiKey });
  const credits = async (s: Shop) => (await app.store.getAccount(s.accountId))!.credits;
  let n = 0;
  const newRequest = async (amount = 250, extra: Record<string, unknown> = {}) => (await create(app, merchant, { amount, reference: `pay-${++n}`, ...extra })).body.data;

  it('pays the request: the answer says paid, the request shows the slip, the verification is charged once', async () => {
    const request = await newRequest(250);
    const before = await credits(merchant);
    const res = await pay(merchant, slipFor({ amount: 250 }), request.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
    expect(await credits(merchant)).toBe(before - 1);
    const shown = (await call(app, 'GET', `${PATH}/${request.id}`, merchant.apiKey)).body.data;
    expect(shown).toMatchObject({ status: 'paid', paidBy: { transactionId: res.body.data.transactionId, sendingBank: res.body.data.senderBankCode, amount: 250 } });
    expect(shown.paidAt).toMatch(/\+07:00$/);
    // Paid requests are not cancelled.
    expect((await call(app, 'POST', `${PATH}/${request.id}/cancel`, merchant.apiKey)).status).toBe(409);
  });

  it('says why a verified slip did not pay (each refusal still charged as a success)', async () => {
    const paidOne = await newRequest(100);
    const usedSlip = slipFor({ amount: 100 });
    expect((await pay(merchant, usedSlip, paidOne.id)).body.paymentRequest.status).toBe('paid');
    const cases: [string, () => Promise<{ request: { id: string }; qrcode: string }>, Record<string, unknown>][] = [
      ['amount_mismatch', async () => ({ request: await newRequest(100), qrcode: slipFor({ amount: 99.99 }) }), { status: 'pending' }],
      ['wrong_receiver', async () => ({ request: await newRequest(100), qrcode: slipFor({ amount: 100, promptPay: '0898765432' }) }), { status: 'pending' }],
      ['transferred_before_request', async () => ({ request: await newRequest(100), qrcode: slipFor({ amount: 100, paidAt: new Date(Date.now() - 3_600_000) }) }), { status: 'pending' }],
      ['already_paid', async () => ({ request: paidOne, qrcode: slipFor({ amount: 100 }) }), { status: 'paid' }],
      ['slip_already_used', async () => ({ request: await newRequest(100), qrcode: usedSlip }), { status: 'pending', otherRequestId: paidOne.id }],
      [
        'cancelled',
        async () => {
          const request = await newRequest(100);
          await call(app, 'POST', `${PATH}/${request.id}/cancel`, merchant.apiKey);
          return { request, qrcode: slipFor({ amount: 100 }) };
        },
        { status: 'cancelled' },
      ],
    ];
    for (const [reason, setup, rest] of cases) {
      const { request, qrcode } = await setup();
      const before = await credits(merchant);
      const res = await pay(merchant, qrcode, request.id);
      expect(res.body.status, reason).toBe('success');
      expect(res.body.paymentRequest, reason).toEqual({ id: request.id, reason, ...rest });
      expect(await credits(merchant), reason).toBe(before - 1);
    }
  });

  it('refuses a malformed, unknown or other account\'s paymentRequest with 400 before any credit is held', async () => {
    const other = await shop(app, 5, '0877777777');
    const theirs = (await create(app, other, { amount: 10, reference: 'theirs' })).body.data;
    const before = await credits(merchant);
    for (const [id, message] of [
      ['nope', 'paymentRequest must be a payment request id'],
      [12, 'paymentRequest must be a payment request id'],
      [`pr_${'0'.repeat(32)}`, 'not found'],
      [theirs.id, 'not found'],
    ] as const) {
      const res = await pay(merchant, slipFor({ amount: 10 }), id);
      expect(res.status, String(id)).toBe(400);
      expect(res.body.message, String(id)).toContain(message);
      expect(res.headers.get('x-credits-remaining')).toBe(String(before));
    }
    expect(await credits(merchant)).toBe(before);
    expect((await call(app, 'GET', `${PATH}/${theirs.id}`, other.apiKey)).body.data.status).toBe('pending');
  });

  it('leaves the answer unchanged without paymentRequest', async () => {
    const res = await pay(merchant, slipFor({ amount: 5 }));
    expect(Object.keys(res.body)).toEqual(['status', 'data', 'message', 'qrcode']);
  });

  it('slips racing for one request: exactly one pays it, and it is the one recorded', async () => {
    const request = await newRequest(300);
    const slips = Array.from({ length: 6 }, () => slipFor({ amount: 300 }));
    const answers = await Promise.all(slips.map((q) => pay(merchant, q, request.id)));
    const paid = answers.filter((a) => a.body.paymentRequest?.status === 'paid' && !a.body.paymentRequest.reason);
    expect(paid).toHaveLength(1);
    for (const a of answers) if (a !== paid[0]) expect(a.body.paymentRequest).toEqual({ id: request.id, status: 'paid', reason: 'already_paid' });
    const shown = (await call(app, 'GET', `${PATH}/${request.id}`, merchant.apiKey)).body.data;
    expect(shown.paidBy.transactionId).toBe(paid[0]!.body.data.transactionId);
  });

  it('one slip racing for several requests pays at most one: requests told paid = requests recorded paid', async () => {
    const requests = await Promise.all([1, 2, 3, 4, 5].map(() => newRequest(310)));
    const qrcode = slipFor({ amount: 310 });
    const answers = await Promise.all(requests.map((r) => pay(merchant, qrcode, r.id)));
    const told = answers.filter((a) => a.body.paymentRequest.status === 'paid').map((a) => a.body.paymentRequest.id);
    const recorded = [];
    for (const r of requests) if ((await call(app, 'GET', `${PATH}/${r.id}`, merchant.apiKey)).body.data.status === 'paid') recorded.push(r.id);
    expect(told).toHaveLength(1);
    expect(recorded).toEqual(told);
  });
});
