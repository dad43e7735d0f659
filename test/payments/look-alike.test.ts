// Issue 44's attack, from outside on a running slipgate: an order's receiver
// is PromptPay 0812345678 "ร้านกาแฟ ดีดี"; the attacker pays himself at
// 0999945679, which the bank shows with the same digits (`xxxxx4567x`),
// under his own name. The slip is real and verified (charged like any
// success), but it pays no order, passes no `require` policy and `report`
// says it paid none of the shop's receivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH } from './helpers.js';

const SHOP_NUMBER = '0812345678';
const LOOK_ALIKE = '0999945679';

describe('a look-alike PromptPay number', () => {
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  beforeAll(async () => {
    app = await startApp();
    ({ accountId, apiKey } = await app.account(10));
    await app.admin.addReceiver('test', { accountId, promptPay: SHOP_NUMBER, nameTh: 'ร้านกาแฟ ดีดี' });
  });
  afterAll(() => app?.stop());

  const slip = (digits: string, receiverName: string) => sandboxQr({ amount: 250, details: { receiverProxy: { type: 'MSISDN', digits }, receiverName, paidAt: new Date() } });
  const verify = (qrcode: string, paymentRequest?: string) => app.post({ qrcode, ...(paymentRequest ? { paymentRequest } : {}) }, { 'x-api-key': apiKey });

  it('does not pay the order; the shop’s own slip does', async () => {
    const order = (await create(app, { accountId, apiKey, receiverId: '' }, { amount: 250, reference: 'order-1' })).body.data;
    const attack = await verify(slip(LOOK_ALIKE, 'MALLORY LIM'), order.id);
    expect(attack.body.data.receiverPromptpay).toBe('xxxxx4567x');
    expect(attack.body.paymentRequest).toEqual({ id: order.id, status: 'pending', reason: 'wrong_receiver' });
    expect((await call(app, 'GET', `${PATH}/${order.id}`, apiKey)).body.data.status).toBe('pending');
    const own = await verify(slip(SHOP_NUMBER, 'ร้านกาแฟ ดีดี'), order.id);
    expect(own.body.paymentRequest).toEqual({ id: order.id, status: 'paid' });
  });

  it('is refused by `require` (1025, free) and reported as no receiver of the shop by `report`', async () => {
    await app.admin.setReceiverPolicy('test', accountId, 'require');
    const refused = await verify(slip(LOOK_ALIKE, 'MALLORY LIM'));
    expect(refused.status).toBe(400);
    expect(refused.body).toStrictEqual({ status: 'error', code: 1025, message: 'receiver not registered' });
    await app.admin.setReceiverPolicy('test', accountId, 'report');
    const reported = await verify(slip(LOOK_ALIKE, 'MALLORY LIM'));
    expect(reported.body.checks.receiver).toEqual({ passed: false, policy: 'report', receiverId: null, label: null, matchedBy: [] });
    const own = await verify(slip(SHOP_NUMBER, 'ร้านกาแฟ ดีดี'));
    expect(own.body.checks.receiver).toMatchObject({ passed: true, matchedBy: ['account', 'name'] });
  });
});
