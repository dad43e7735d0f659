// The checkout page with a bank that publishes late (issue 45), over real
// HTTP without a browser: a real simulated bank on a real port that answers
// "not found" until the test makes it publish, and slipgate on SQLite (the
// store engines are covered by test/payments/rechecks.test.ts). An uploaded
// slip the bank does not know yet is kept for re-checks and the page shows it
// being verified; the test runs each re-check pass itself (runOnce), so
// nothing depends on timing.
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCheckoutReturn } from '../../src/client/webhooks.js';
import { checkoutLinks } from '../../src/domain/payments/checkout-link.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH, shop, slipFor, type Shop } from '../payments/helpers.js';

const SECRETS_KEY = 'b'.repeat(64);
const PUBLIC_URL = 'https://pay.example.com';
/** No pass of its own within a test (the test runs each); the deadline a minute away. */
const MANUAL = { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 };

describe('checkout page with a bank that publishes late', () => {
  let bank: SimulatedBank;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    bank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await bank?.close();
  });

  const publishing = (on: boolean) => void (bank.state.behavior.answer = on ? 'normal' : 'not_found');

  /** A slipgate asking the simulated bank, with a shop of 10 credits; `windowMs` is RECHECK_MINUTES'. */
  async function serve(windowMs = MANUAL.windowMs) {
    const { id, secret } = bankSimulator('kbank').credentials;
    const upstreams = JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]);
    const app = await startApp({ env: { PUBLIC_URL, SECRETS_KEY, UPSTREAMS: upstreams, CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100' }, upstream: null, recheckTiming: { ...MANUAL, windowMs } });
    apps.push(app);
    const merchant: Shop = await shop(app, 10);
    const local = (checkoutUrl: string) => app.publicUrl + checkoutUrl.slice(PUBLIC_URL.length);
    return {
      app,
      merchant,
      credits: async () => (await app.store.getAccount(merchant.accountId))!.credits,
      order: async (amount: number, reference: string, successUrl?: string) => {
        const made = (await create(app, merchant, { amount, reference, ...(successUrl ? { successUrl } : {}) })).body.data;
        return { id: made.id as string, url: local(made.checkoutUrl) };
      },
      upload: async (url: string, amount: number, lang = 'en') => {
        const form = new FormData();
        const picture = await QRCode.toBuffer(slipFor({ amount }), { type: 'png', width: 360, margin: 4 });
        form.append('slip', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'slip.png');
        return fetch(`${url}?lang=${lang}`, { method: 'POST', body: form, redirect: 'manual' });
      },
      /** Where the verifying page at `url` goes once its check ends (its data-checked-url), on this server. */
      checkedUrl: async (url: string, lang = 'en') => {
        const html = await (await fetch(`${url}?lang=${lang}`)).text();
        return app.publicUrl + /data-checked-url="([^"]+)"/.exec(html)![1]!.replaceAll('&#38;', '&');
      },
      status: async (url: string) => ((await (await fetch(`${url}/status.json`)).json()) as { status: string }).status,
      read: async (id: string) => (await call(app, 'GET', `${PATH}/${id}`, merchant.apiKey)).body.data,
      where: (res: Response) => new URL(res.headers.get('location')!, app.publicUrl),
    };
  }

  it('a slip the bank does not know yet: the verifying page, nothing charged; once published a pass pays it once and …/checked returns to the shop signed', async () => {
    publishing(false);
    const s = await serve();
    const order = await s.order(220, 'late-co', 'https://shop.example/thanks?order=late-co');
    const sent = await s.upload(order.url, 220);
    // The page itself (not the API's 202): reloading it sends nothing again.
    expect(sent.status).toBe(303);
    expect(s.where(sent).pathname + s.where(sent).search).toBe(`${new URL(order.url).pathname}?lang=en`);
    const page = await fetch(s.where(sent));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('data-state="verifying"');
    expect(html).toContain('We are confirming your transfer with your bank; this page updates by itself.');
    // Nothing to pay or upload while it is checked; without JavaScript the page refreshes through …/checked.
    expect(html).not.toContain('id="upload"');
    expect(html).not.toContain('id="qr"');
    const checking = (await s.read(order.id)).verifying.verificationId;
    expect(html).toContain(`<noscript><meta http-equiv="refresh" content="10;url=${new URL(order.url).pathname}/checked?lang=en&#38;slip=${checking}"></noscript>`);
    expect(html).toContain(`data-checked-url="${new URL(order.url).pathname}/checked?lang=en&#38;slip=${checking}"`);
    expect(await (await fetch(`${order.url}?lang=th`)).text()).toContain('กำลังยืนยันการโอนเงินกับธนาคารของคุณ');
    expect(await s.status(order.url)).toBe('verifying');
    expect(await s.read(order.id)).toMatchObject({ status: 'verifying', verifying: { sendingBank: expect.any(String) } });
    expect(await s.credits()).toBe(10);
    // Still checking: …/checked sends the page back to itself.
    const early = await fetch(`${order.url}/checked?lang=en`, { redirect: 'manual' });
    expect([early.status, s.where(early).pathname]).toEqual([303, new URL(order.url).pathname]);

    // A pass while the bank still does not know it: still verifying, still free.
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('verifying');
    expect(await s.credits()).toBe(10);

    publishing(true);
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('paid');
    expect((await s.read(order.id)).status).toBe('paid');
    expect(await s.credits()).toBe(9);
    // Where page.js (or the no-JavaScript refresh) goes next: the shop, signed, as a paid upload's answer goes.
    const back = await fetch(`${order.url}/checked?lang=en`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    const returned = s.where(back);
    expect(returned.origin + returned.pathname).toBe('https://shop.example/thanks');
    expect(returned.searchParams.get('order')).toBe('late-co');
    const secret = checkoutLinks({ secretsKey: Buffer.from(SECRETS_KEY, 'hex') }).accountSecret(s.merchant.accountId)!;
    expect(verifyCheckoutReturn(returned, secret)).toEqual({ ok: true, paymentRequest: order.id, status: 'paid' });
    // Paid: another pass and another upload charge nothing.
    await s.app.rechecks.runOnce();
    expect((await s.upload(order.url, 220)).status).toBe(409);
    expect(await s.credits()).toBe(9);
  });

  it('a slip uploaded while another is verifying: kept too, and only one of them pays; one the bank knows pays at once and the kept one costs nothing', async () => {
    publishing(false);
    const s = await serve();
    const order = await s.order(230, 'two-co');
    // One after the other: the race under test is the re-checks' (test/payments/rechecks.test.ts).
    expect((await s.upload(order.url, 230)).status).toBe(303);
    expect((await s.upload(order.url, 230)).status).toBe(303);
    expect(await s.status(order.url)).toBe('verifying');
    publishing(true);
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('paid');
    expect(await s.credits()).toBe(9);
    // Without successUrl, …/checked shows the paid page.
    const checked = await fetch(`${order.url}/checked?lang=en`);
    expect(await checked.text()).toContain('Paid. Thank you!');

    publishing(false);
    const other = await s.order(240, 'direct-co');
    expect((await s.upload(other.url, 240)).status).toBe(303);
    publishing(true);
    const direct = await s.upload(other.url, 240);
    expect(direct.status).toBe(303);
    expect(await s.status(other.url)).toBe('paid');
    await s.app.rechecks.runOnce();
    expect(await s.status(other.url)).toBe('paid');
    expect(await s.credits()).toBe(8);
  });

  it('a slip never published: back to pending with what the customer can do, nothing charged, open for another slip', async () => {
    publishing(false);
    // The deadline right away: the first pass that still finds nothing is the last.
    const s = await serve(1);
    const order = await s.order(250, 'never-co');
    expect((await s.upload(order.url, 250, 'th')).status).toBe(303);
    expect(await s.status(order.url)).toBe('verifying');
    const checked = await s.checkedUrl(order.url, 'th');
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('pending');
    const after = await s.read(order.id);
    expect(after.status).toBe('pending');
    expect(after.verifying).toBeUndefined();
    expect(await s.credits()).toBe(10);
    // Where the verifying page goes: the payment again, with the bank's silence said in its language.
    const th = await fetch(checked);
    expect(th.status).toBe(200);
    const html = await th.text();
    expect(html).toContain('ธนาคารยังไม่มีข้อมูลการโอนนี้');
    expect(html).toContain('id="upload"');
    expect(html).toContain('data-state="pending"');
    expect(await (await fetch(`${order.url}/checked?lang=en`)).text()).toContain('The bank has no record of this transfer yet. Check with your bank, or upload the slip again.');

    // Confirmed at last but for another amount: the page says that, not the bank's silence (the check is
    // charged, as a direct verify of that slip is).
    expect((await s.upload(order.url, 251)).status).toBe(303);
    const wrong = await s.checkedUrl(order.url);
    publishing(true);
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('pending');
    expect(await (await fetch(wrong)).text()).toContain('This slip is for another amount.');
    expect(await s.credits()).toBe(9);
    publishing(false);

    // A bank that fails rather than says "not found" is waited for the same way.
    bank.state.behavior.errorRate = 1;
    try {
      expect((await s.upload(order.url, 250)).status).toBe(303);
      expect(await s.status(order.url)).toBe('verifying');
    } finally {
      bank.state.behavior.errorRate = 0;
    }
    publishing(true);
    await s.app.rechecks.runOnce();
    expect(await s.status(order.url)).toBe('paid');
    expect(await s.credits()).toBe(8);
  });
});
