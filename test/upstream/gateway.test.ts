// The real bank adapters behind the whole gateway: POST /api/v1/verify over
// HTTP, answered through the pool by fake banks over loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUpstream } from '../../src/upstream/build.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startFakeKbank, type FakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb, type FakeScb } from '../fakes/scb-server.js';

describe('gateway with bank adapters', () => {
  let app: TestApp;
  let kbank: FakeKbank;
  let scb: FakeScb;

  beforeAll(async () => {
    kbank = await startFakeKbank();
    scb = await startFakeScb();
    // Alternate between the two domains so both banks answer, deterministically.
    let turn = 0;
    const random = () => (turn++ % 2 === 0 ? 0.25 : 0.75);
    const upstream = buildUpstream([kbank.config('kbank-1'), scb.config('scb-1')], { sandbox: () => new SandboxUpstream(), random });
    app = await startApp({ upstream, env: { UPSTREAM_TIMEOUT_MS: '400' } });
  });
  afterAll(async () => {
    await app?.stop();
    await kbank?.close();
    await scb?.close();
  });

  it('verifies slips through either bank and charges one credit each', async () => {
    const { accountId, apiKey } = await app.account(10);
    const amountTypes = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const res = await app.verify(apiKey, sandboxQr({ bank: '004', amount: 250 }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', data: { amount: 250, senderBankCode: '004' } });
      amountTypes.add(typeof res.body.data.rawData.amount);
    }
    expect([kbank.calls.verify, scb.calls.verify]).toEqual([4, 4]);
    // KBank reports the amount as a number, SCB as text; rawData keeps whichever came.
    expect([...amountTypes].sort()).toEqual(['number', 'string']);
    expect((await app.store.getAccount(accountId))!.credits).toBe(2);
  });

  it('answers a bank timeout with the spec’s HTTP 200 error and charges nothing', async () => {
    const { accountId, apiKey } = await app.account(1);
    const res = await app.verify(apiKey, sandboxQr({ outcome: 'timeout' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'error', message: 'verification service timed out' });
    expect((await app.store.getAccount(accountId))!.credits).toBe(1);
  });
});
