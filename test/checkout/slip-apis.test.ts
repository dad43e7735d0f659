// A payment request paid through the checkout page with a slip API as the
// network (EasySlip, Slip2Go), over real HTTP: the provider's simulator on a
// real port, slipgate configured with its UPSTREAMS entry. A slip the
// provider says the bank publishes later is kept for re-checks and paid
// once, by a re-check pass the test runs itself (runOnce), so nothing
// depends on timing.
import QRCode from 'qrcode';
import { afterAll, describe, expect, it } from 'vitest';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH, shop, slipFor } from '../payments/helpers.js';

const SECRETS_KEY = 'c'.repeat(64);
const PUBLIC_URL = 'https://pay.example.com';
const MANUAL = { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 };

describe.each(['easyslip', 'slip2go'])('checkout through %s', (provider) => {
  const banks: SimulatedBank[] = [];
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.stop();
    for (const bank of banks) await bank.close();
  });

  async function serve() {
    const bank = await startSimulatedBank({ provider, port: 0 });
    banks.push(bank);
    const upstreams = JSON.stringify([bankSimulator(provider).entry(bank.url, bank.credentials)]);
    const app = await startApp({ env: { PUBLIC_URL, SECRETS_KEY, UPSTREAMS: upstreams, CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100' }, upstream: null, recheckTiming: MANUAL });
    apps.push(app);
    const merchant = await shop(app, 10);
    const local = (checkoutUrl: string) => app.publicUrl + checkoutUrl.slice(PUBLIC_URL.length);
    return {
      bank,
      app,
      credits: async () => (await app.store.getAccount(merchant.accountId))!.credits,
      order: async (amount: number, reference: string) => {
        const made = (await create(app, merchant, { amount, reference })).body.data;
        return { id: made.id as string, url: local(made.checkoutUrl) };
      },
      upload: async (url: string, amount: number) => {
        const form = new FormData();
        const picture = await QRCode.toBuffer(slipFor({ amount }), { type: 'png', width: 360, margin: 4 });
        form.append('slip', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'slip.png');
        return fetch(`${url}?lang=en`, { method: 'POST', body: form, redirect: 'manual' });
      },
      read: async (id: string) => (await call(app, 'GET', `${PATH}/${id}`, merchant.apiKey)).body.data,
    };
  }

  it('pays a payment request from the slip uploaded on its checkout page, charging one credit', async () => {
    const s = await serve();
    const order = await s.order(150, `${provider}-paid`);
    expect((await s.upload(order.url, 150)).status).toBe(303);
    expect(await s.read(order.id)).toMatchObject({ status: 'paid' });
    expect(await s.credits()).toBe(9);
    expect(s.bank.state.calls.verify).toBe(1);
    expect(s.bank.state.calls.providerChecks).toBe(0);
  });

  it('keeps a slip the bank publishes later for re-checks, free, and pays it once when published', async () => {
    const s = await serve();
    s.bank.state.behavior.answer = 'pending';
    const order = await s.order(90, `${provider}-late`);
    expect((await s.upload(order.url, 90)).status).toBe(303);
    expect(await s.read(order.id)).toMatchObject({ status: 'verifying' });
    expect(await s.credits()).toBe(10);

    s.bank.state.behavior.answer = 'normal';
    await s.app.rechecks.runOnce();
    expect(await s.read(order.id)).toMatchObject({ status: 'paid' });
    expect(await s.credits()).toBe(9);
    await s.app.rechecks.runOnce();
    expect(await s.credits()).toBe(9);
  });
});
