// The SDK against a real slipgate whose bank publishes late (a simulated bank
// on a real port answering "not found" until the test flips its knob): the
// `pending` result of verify with `recheck` or `paymentRequest`, the 1027
// refusal, and getVerification() before and after the bank publishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ERROR_CODES } from '../../src/client/index.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';

describe('slipgate/client: slips the bank does not know yet', () => {
  let bank: SimulatedBank;
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
    const { id, secret } = bankSimulator('kbank').credentials;
    const env = { UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]), RECHECK_MAX_PER_ACCOUNT: '2' };
    app = await startApp({ upstream: null, env, recheckTiming: { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 } });
    merchant = await shop(app, 5);
  });
  afterAll(async () => {
    await app?.stop();
    await bank?.close();
  });

  it('answers pending, refuses beyond the bound with 1027, and reads the outcome with getVerification', async () => {
    const client = createClient({ url: app.publicUrl, apiKey: merchant.apiKey, retries: 0 });
    const plain = await client.verify(slipFor({ amount: 80 }));
    expect(plain).toMatchObject({ status: 'error', kind: 'verification', httpStatus: 200 });
    const kept = await client.verify(slipFor({ amount: 80 }), { recheck: true });
    expect(kept).toEqual({ status: 'pending', httpStatus: 202, verificationId: expect.any(String), message: expect.any(String), creditsRemaining: 5 });
    const order = (await create(app, merchant, { amount: 81, reference: 'sdk-late' })).body.data.id as string;
    const forOrder = await client.verify(slipFor({ amount: 81 }), { paymentRequest: order });
    expect(forOrder).toMatchObject({ status: 'pending', paymentRequest: { id: order, status: 'verifying' } });
    expect(await client.verify(slipFor({ amount: 82 }), { recheck: true })).toMatchObject({ status: 'error', kind: 'rate_limited', httpStatus: 429, code: ERROR_CODES.RECHECK_LIMIT });
    const shown = await client.getPaymentRequest(order);
    expect(shown).toMatchObject({ status: 'success', data: { status: 'verifying', verifying: { verificationId: forOrder.status === 'pending' ? forOrder.verificationId : '' } } });

    if (kept.status !== 'pending') throw new Error('expected pending');
    expect(await client.getVerification(kept.verificationId)).toMatchObject({ httpStatus: 200, status: 'pending', verificationId: kept.verificationId });
    expect(await client.getVerification('req_unknown')).toMatchObject({ status: 'error', httpStatus: 404 });
    bank.state.behavior.answer = 'normal';
    await app.rechecks.runOnce();
    expect(await client.getVerification(kept.verificationId)).toMatchObject({ httpStatus: 200, status: 'success', data: { amount: 80 }, recordId: expect.any(String) });
    expect(await client.getPaymentRequest(order)).toMatchObject({ status: 'success', data: { status: 'paid' } });
  });
});
