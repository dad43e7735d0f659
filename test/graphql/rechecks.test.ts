// Slips being re-checked through GraphQL: a viewer lists an account's open
// re-checks (reference masked) and sees the slip a payment request is
// verifying; both are gone once the bank publishes and the re-check ends.
// The bank is a simulated one on a real port that does not know any slip
// until the test flips its knob.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { create, shop, slipFor } from '../payments/helpers.js';
import { dataOf, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const OPEN = `query ($id: ID!, $request: ID!) {
  account(id: $id) { openRechecks { verificationId paymentRequestId sendingBank transRef since deadline attempts } }
  paymentRequest(id: $request) { status verifying { verificationId transRef } }
}`;

describe('GraphQL admin API: slips being re-checked', () => {
  let bank: SimulatedBank;
  let app: GraphqlTestApp;
  beforeAll(async () => {
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
    const { id, secret } = bankSimulator('kbank').credentials;
    const env = { UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]) };
    app = await startGraphqlApp({ upstream: null, env, recheckTiming: { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 } });
  });
  afterAll(async () => {
    await app?.stop();
    await bank?.close();
  });

  it('lists the open re-checks and the slip a request is verifying, until the bank confirms it', async () => {
    const merchant = await shop(app, 5);
    const order = (await create(app, merchant, { amount: 75, reference: 'g-late' })).body.data.id as string;
    const kept = await app.post({ qrcode: slipFor({ amount: 75 }), paymentRequest: order }, { 'x-api-key': merchant.apiKey });
    expect(kept.status).toBe(202);
    const open = dataOf(await app.gql('viewer', OPEN, { id: merchant.accountId, request: order }));
    expect(open.account.openRechecks).toEqual([
      { verificationId: kept.body.verificationId, paymentRequestId: order, sendingBank: expect.stringMatching(/^\d{3}$/), transRef: expect.stringMatching(/^\*+\w{4}$/), since: expect.any(String), deadline: expect.any(String), attempts: 0 },
    ]);
    // Stored pending; the slip being checked beside it.
    expect(open.paymentRequest).toEqual({ status: 'PENDING', verifying: { verificationId: kept.body.verificationId, transRef: open.account.openRechecks[0].transRef } });

    bank.state.behavior.answer = 'normal';
    await app.rechecks.runOnce();
    const after = dataOf(await app.gql('viewer', OPEN, { id: merchant.accountId, request: order }));
    expect(after).toEqual({ account: { openRechecks: [] }, paymentRequest: { status: 'PAID', verifying: null } });
  });
});
