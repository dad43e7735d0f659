// The checkout page in Debian's Chromium (playwright-core) at phone size
// (390×844), in Thai and in English: the QR read back from a screenshot, a
// slip picture uploaded through the page that pays the request and lands on
// successUrl with a valid signature, the same without JavaScript, the page
// updating itself when the request is paid elsewhere, a slip the bank
// publishes late (verifying, then the shop; or back to the payment when it
// never does), and the cancelled and already-paid pages. One browser for the
// file; screenshots go to test-output/checkout/.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCheckoutReturn } from '../../src/client/webhooks.js';
import { checkoutLinks } from '../../src/domain/payments/checkout-link.js';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { call, create, PATH, shop, slipFor, type Shop } from '../payments/helpers.js';

const SECRETS_KEY = 'c'.repeat(64);
const PHONE = { width: 390, height: 844 };
const SHOTS = join(process.cwd(), 'test-output', 'checkout');

describe('checkout page in Chromium', () => {
  let app: TestApp;
  let merchant: Shop;
  let browser: Browser;
  let shopSite: Server;
  let shopUrl: string;
  const pictures = tempDir('slipgate-checkout-');
  /** How far the sandbox's clock is ahead of the wall clock: late slips are published by moving it. */
  let ahead = 0;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    shopSite = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><h1>Thank you</h1>'));
    await new Promise<void>((r) => shopSite.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shopSite.address() as AddressInfo).port}`;
    // PUBLIC_URL is this server itself: the browser opens checkoutUrl as a customer would.
    const port = await freePort();
    // Re-checks run only when the test runs a pass, and the first that finds nothing is the last (the deadline is at once).
    const recheckTiming = { windowMs: 1, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 };
    app = await startApp({ env: { SECRETS_KEY, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }, upstream: new SandboxUpstream('sandbox', 0, () => Date.now() + ahead), recheckTiming });
    merchant = await shop(app, 20);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    shopSite?.close();
    pictures.remove();
  });

  const phone = (locale: string, javaScriptEnabled = true): Promise<BrowserContext> =>
    browser.newContext({ viewport: PHONE, locale, javaScriptEnabled, deviceScaleFactor: 1, extraHTTPHeaders: { 'accept-language': locale } });
  const slipPicture = async (name: string, amount: number, late: Omit<Parameters<typeof slipFor>[0], 'amount'> = {}) => {
    const file = join(pictures.path, name);
    await QRCode.toFile(file, slipFor({ amount, ...late }), { width: 360, margin: 4 });
    return file;
  };

  it('Thai, with JavaScript: the QR reads back from the screenshot, and an uploaded slip lands on successUrl signed', async () => {
    const made = (await create(app, merchant, { amount: 250, reference: 'web-th', successUrl: `${shopUrl}/thanks?order=web-th` })).body.data;
    const context = await phone('th-TH');
    const page = await context.newPage();
    await page.goto(made.checkoutUrl);
    await page.locator('#qr').evaluate((img: HTMLImageElement) => img.decode());
    expect(await page.locator('h1').textContent()).toBeTruthy();
    expect(await page.locator('#amount').textContent()).toBe('฿250.00');
    await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/^\d+:\d{2}$/);
    const shot = await page.screenshot({ path: join(SHOTS, 'checkout-th.png'), fullPage: true });
    expect(await decodeSlipImage(shot)).toBe(made.promptpay);
    await page.setInputFiles('#slip', await slipPicture('th.png', 250));
    await Promise.all([page.waitForURL(`${shopUrl}/**`), page.click('button[type=submit]')]);
    const back = new URL(page.url());
    expect(back.searchParams.get('order')).toBe('web-th');
    const secret = checkoutLinks({ secretsKey: Buffer.from(SECRETS_KEY, 'hex') }).accountSecret(merchant.accountId)!;
    expect(verifyCheckoutReturn(back, secret)).toEqual({ ok: true, paymentRequest: made.id, status: 'paid' });
    // Back on the page: paid, no form.
    await page.goto(made.checkoutUrl);
    expect(await page.locator('#state').textContent()).toBe('ชำระเงินแล้ว ขอบคุณค่ะ');
    expect(await page.locator('#upload').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'checkout-th-paid.png') });
    await context.close();
  });

  it('English, without JavaScript: the plain form pays and the page shows the paid state; wrong slips get their own page', async () => {
    const made = (await create(app, merchant, { amount: 80, reference: 'web-en' })).body.data;
    const context = await phone('en-GB', false);
    const page = await context.newPage();
    await page.goto(made.checkoutUrl);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await page.screenshot({ path: join(SHOTS, 'checkout-en-nojs.png'), fullPage: true });
    await page.setInputFiles('#slip', await slipPicture('wrong.png', 81));
    await page.click('button[type=submit]');
    expect(await page.locator('#verdict').textContent()).toContain('another amount');
    await page.screenshot({ path: join(SHOTS, 'checkout-en-wrong-amount.png'), fullPage: true });
    await page.setInputFiles('#slip', await slipPicture('en.png', 80));
    await page.click('button[type=submit]');
    expect(await page.locator('#state').textContent()).toBe('Paid. Thank you!');
    await context.close();
  });

  it('Thai, with JavaScript: a slip the bank publishes late shows verifying, then lands on successUrl signed once a pass finds it', async () => {
    const made = (await create(app, merchant, { amount: 270, reference: 'web-late', successUrl: `${shopUrl}/thanks?order=web-late` })).body.data;
    const context = await phone('th-TH');
    const page = await context.newPage();
    await page.goto(made.checkoutUrl);
    await page.setInputFiles('#slip', await slipPicture('late.png', 270, { lateSeconds: 600 }));
    await Promise.all([page.waitForURL(`**/checkout/${made.id}/*?lang=th`), page.click('button[type=submit]')]);
    expect(await page.locator('#state.state-verifying').textContent()).toBe('กำลังยืนยันการโอนเงินกับธนาคารของคุณ หน้านี้จะอัปเดตเองค่ะ');
    expect(await page.locator('#pay').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'checkout-th-verifying.png') });
    ahead = 601_000;
    await app.rechecks.runOnce();
    // page.js sees paid on its next poll and goes on through …/checked.
    await page.waitForURL(`${shopUrl}/**`);
    const secret = checkoutLinks({ secretsKey: Buffer.from(SECRETS_KEY, 'hex') }).accountSecret(merchant.accountId)!;
    expect(verifyCheckoutReturn(new URL(page.url()), secret)).toEqual({ ok: true, paymentRequest: made.id, status: 'paid' });
    await context.close();
  });

  it('English, with JavaScript: a slip the bank never publishes goes back to the payment with what to do', async () => {
    const made = (await create(app, merchant, { amount: 280, reference: 'web-never' })).body.data;
    const context = await phone('en-GB');
    const page = await context.newPage();
    await page.goto(made.checkoutUrl);
    await page.setInputFiles('#slip', await slipPicture('never.png', 280, { neverFound: true }));
    await Promise.all([page.waitForURL(`**/checkout/${made.id}/*?lang=en`), page.click('button[type=submit]')]);
    await page.locator('#state.state-verifying').waitFor();
    await app.rechecks.runOnce();
    await page.locator('#verdict').waitFor();
    expect(await page.locator('#verdict').textContent()).toBe('The bank has no record of this transfer yet. Check with your bank, or upload the slip again.');
    expect(await page.locator('#upload').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'checkout-en-unconfirmed.png'), fullPage: true });
    await context.close();
  });

  it('with JavaScript, updates itself when the request is paid elsewhere; cancelled and switched language pages', async () => {
    const made = (await create(app, merchant, { amount: 60, reference: 'web-poll' })).body.data;
    const context = await phone('en-GB');
    const page = await context.newPage();
    await page.goto(made.checkoutUrl);
    const body = await call(app, 'POST', '/api/v1/verify', merchant.apiKey, { qrcode: slipFor({ amount: 60 }), paymentRequest: made.id });
    expect(body.body.paymentRequest.status).toBe('paid');
    await page.locator('#state.state-paid').waitFor();
    expect(await page.locator('#pay').count()).toBe(0);
    const cancelled = (await create(app, merchant, { amount: 61, reference: 'web-cancel' })).body.data;
    await call(app, 'POST', `${PATH}/${cancelled.id}/cancel`, merchant.apiKey);
    await page.goto(cancelled.checkoutUrl);
    expect(await page.locator('#state').textContent()).toBe('The shop cancelled this payment.');
    await page.click('#lang');
    expect(await page.locator('#state').textContent()).toBe('ร้านยกเลิกรายการนี้แล้ว');
    await page.screenshot({ path: join(SHOTS, 'checkout-th-cancelled.png') });
    await context.close();
  });
});

/** A port free a moment ago: PUBLIC_URL must name the listener before it starts. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createTcpServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
