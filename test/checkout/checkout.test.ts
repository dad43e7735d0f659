// The checkout page of a payment request over real HTTP, without a browser
// (the no-JavaScript path): checkoutUrl on the answers, the token (altered:
// 404), the page's safety headers, the framed QR read back to the exact
// payload, an upload that pays and returns to successUrl signed, verdict
// pages, junk uploads, the bound on what a visitor can spend, and the
// access log without the token.
import { Writable } from 'node:stream';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCheckoutReturn } from '../../src/client/webhooks.js';
import { checkoutLinks } from '../../src/domain/payments/checkout-link.js';
import { createLogger } from '../../src/log/log.js';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH, shop, slipFor, type Shop } from '../payments/helpers.js';

const SECRETS_KEY = 'a'.repeat(64);
const PUBLIC_URL = 'https://pay.example.com';

describe('checkout page', () => {
  let app: TestApp;
  let merchant: Shop;
  const log: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => (log.push(chunk.toString()), done()) });
    app = await startApp({ env: { PUBLIC_URL: `${PUBLIC_URL}/`, SECRETS_KEY, CHECKOUT_MAX_CHECKS: '3', CHECKOUT_UPLOADS_PER_IP_PER_MIN: '100' }, logger: createLogger('info', sink) });
    merchant = await shop(app, 20);
  });
  afterAll(() => app?.stop());

  /** The page's path on this server (checkoutUrl names PUBLIC_URL, the outside address). */
  const local = (checkoutUrl: string) => app.publicUrl + checkoutUrl.slice(PUBLIC_URL.length);
  const upload = (url: string, picture: Buffer, lang = 'en') => {
    const form = new FormData();
    form.append('slip', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'slip.png');
    return fetch(`${url}?lang=${lang}`, { method: 'POST', body: form, redirect: 'manual' });
  };
  const picture = (qr: string) => QRCode.toBuffer(qr, { type: 'png', width: 360, margin: 4 });
  const credits = async () => (await app.store.getAccount(merchant.accountId))!.credits;

  it('gives every answer a checkoutUrl under PUBLIC_URL whose token the id alone does not give; another token or id is 404', async () => {
    const made = await create(app, merchant, { amount: 120, reference: 'co-1', successUrl: 'https://shop.example/thanks?order=co-1' });
    expect(made.status).toBe(201);
    const { checkoutUrl, id, successUrl } = made.body.data;
    expect(successUrl).toBe('https://shop.example/thanks?order=co-1');
    expect(checkoutUrl).toMatch(new RegExp(`^${PUBLIC_URL}/checkout/${id}/[A-Za-z0-9_-]{22}$`));
    expect((await call(app, 'GET', `${PATH}/${id}`, merchant.apiKey)).body.data.checkoutUrl).toBe(checkoutUrl);
    const page = await fetch(local(checkoutUrl));
    expect(page.status).toBe(200);
    const token = checkoutUrl.split('/').pop()!;
    const other = (await create(app, merchant, { amount: 121, reference: 'co-2' })).body.data;
    for (const wrong of [checkoutUrl.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), `${PUBLIC_URL}/checkout/${other.id}/${token}`, `${PUBLIC_URL}/checkout/${id}/x`]) {
      expect((await fetch(local(wrong))).status, wrong).toBe(404);
    }
  });

  it('refuses a successUrl that is not https (http only for a loopback host)', async () => {
    for (const successUrl of ['http://shop.example/thanks', 'javascript:alert(1)', 'https://user:pw@shop.example/', 'https://shop.example/#x']) {
      const res = await create(app, merchant, { amount: 1, reference: `bad-${successUrl}`, successUrl });
      expect(res.status, successUrl).toBe(400);
      expect(res.body.message).toMatch(/successUrl/);
    }
    expect((await create(app, merchant, { amount: 1, reference: 'loopback', successUrl: 'http://127.0.0.1:8080/back' })).status).toBe(201);
  });

  it('serves a page with a strict CSP and only its own amount, reference and shop name, and a framed QR that reads as the payload', async () => {
    const made = (await create(app, merchant, { amount: 250.5, reference: 'co-page' })).body.data;
    const res = await fetch(local(made.checkoutUrl), { headers: { 'accept-language': 'th-TH,th;q=0.9,en;q=0.5' } });
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).toContain('<html lang="th">');
    expect(html).toContain('฿250.50');
    expect(html).toContain('co-page');
    expect(html).toContain('<form id="upload" method="post"');
    expect(html).toContain('enctype="multipart/form-data"');
    expect(html).toContain('accept="image/*"');
    expect(html).not.toContain('co-1');
    expect(html).not.toMatch(/https?:\/\/(?!pay\.example)/);
    const en = await (await fetch(`${local(made.checkoutUrl)}?lang=en`)).text();
    expect(en).toContain('Pay with PromptPay');
    const png = await fetch(`${local(made.checkoutUrl)}/qr.png`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(await decodeSlipImage(Buffer.from(await png.arrayBuffer()))).toBe(made.promptpay);
    expect(await (await fetch(`${local(made.checkoutUrl)}/status.json`)).json()).toEqual({ status: 'pending' });
  });

  it('pays with an uploaded slip picture for one credit and returns to successUrl signed, keeping the shop\'s query', async () => {
    const made = (await create(app, merchant, { amount: 99, reference: 'co-pay', successUrl: 'https://shop.example/thanks?order=co-pay&status=forged' })).body.data;
    const before = await credits();
    const paying = await picture(slipFor({ amount: 99 }));
    const res = await upload(local(made.checkoutUrl), paying);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe('https://shop.example/thanks');
    expect(back.searchParams.get('order')).toBe('co-pay');
    expect(back.searchParams.getAll('status')).toEqual(['paid']);
    expect(back.searchParams.get('paymentRequest')).toBe(made.id);
    const secret = checkoutLinks({ secretsKey: Buffer.from(SECRETS_KEY, 'hex') }).accountSecret(merchant.accountId)!;
    expect(verifyCheckoutReturn(back.toString(), secret)).toEqual({ ok: true, paymentRequest: made.id, status: 'paid' });
    expect(verifyCheckoutReturn(back.toString().replace(made.id, 'pr_' + '0'.repeat(32)), secret).ok).toBe(false);
    expect(await credits()).toBe(before - 1);
    expect((await call(app, 'GET', `${PATH}/${made.id}`, merchant.apiKey)).body.data.status).toBe('paid');
    // The paid page, and no more checks.
    const again = await upload(local(made.checkoutUrl), await picture(slipFor({ amount: 99 })));
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('already paid with another slip');
    // The very slip that paid it, uploaded again: said so, read here, nothing asked or charged.
    const same = await upload(local(made.checkoutUrl), paying);
    expect(same.status).toBe(409);
    expect(await same.text()).toContain('already paid with this slip');
    expect(await credits()).toBe(before - 1);
    expect(await (await fetch(`${local(made.checkoutUrl)}/status.json`)).json()).toEqual({ status: 'paid' });
  });

  it('shows the paid state itself without successUrl', async () => {
    const made = (await create(app, merchant, { amount: 77, reference: 'co-nourl' })).body.data;
    const res = await upload(local(made.checkoutUrl), await picture(slipFor({ amount: 77 })), 'th');
    expect(res.status).toBe(303);
    const page = await fetch(new URL(res.headers.get('location')!, app.publicUrl));
    expect(await page.text()).toContain('ชำระเงินแล้ว');
  });

  it('answers junk and wrong slips with their own page, never a 500, and a visitor spends at most CHECKOUT_MAX_CHECKS credits', async () => {
    const made = (await create(app, merchant, { amount: 50, reference: 'co-bound' })).body.data;
    const url = local(made.checkoutUrl);
    const before = await credits();
    const junk = await upload(url, Buffer.from('not a picture at all'));
    expect(junk.status).toBe(422);
    expect(await junk.text()).toContain('could not read a slip QR code');
    const none = await fetch(`${url}?lang=en`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Choose a picture');
    const wrong = await upload(url, await picture(slipFor({ amount: 51 })));
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain('another amount');
    const receiver = await upload(url, await picture(slipFor({ amount: 50, promptPay: '0899999999' })));
    expect(await receiver.text()).toContain('paid someone else');
    // The third check (the junk one counted too) was the last: the rest are refused before any credit is held.
    const answers = await Promise.all(Array.from({ length: 5 }, async () => (await upload(url, await picture(slipFor({ amount: 52 })))).status));
    expect(answers.every((s) => s === 429)).toBe(true);
    expect(before - (await credits())).toBeLessThanOrEqual(3);
    expect(before - (await credits())).toBe(2);
  });

  it('shows cancelled and expired requests as such and takes no upload for them', async () => {
    const made = (await create(app, merchant, { amount: 10, reference: 'co-cancel' })).body.data;
    await call(app, 'POST', `${PATH}/${made.id}/cancel`, merchant.apiKey);
    expect(await (await fetch(`${local(made.checkoutUrl)}?lang=en`)).text()).toContain('The shop cancelled this payment.');
    const res = await upload(local(made.checkoutUrl), await picture(slipFor({ amount: 10 })));
    expect(res.status).toBe(409);
  });

  it('never writes the token into the access log', async () => {
    const made = (await create(app, merchant, { amount: 11, reference: 'co-log' })).body.data;
    await fetch(local(made.checkoutUrl));
    const token = made.checkoutUrl.split('/').pop();
    await new Promise((r) => setTimeout(r, 50));
    expect(log.join('')).toContain(`/checkout/${made.id}/[redacted]`);
    expect(log.join('')).not.toContain(token);
  });

  it('logs the payment routes by their full path (they are mounted under a prefix)', async () => {
    const made = (await create(app, merchant, { amount: 12, reference: 'co-path' })).body.data;
    await call(app, 'GET', `${PATH}/${made.id}/qr.png`, merchant.apiKey);
    await new Promise((r) => setTimeout(r, 50));
    const paths = log.flatMap((line) => line.split('\n').filter(Boolean)).map((line) => JSON.parse(line).path as string | undefined);
    expect(paths).toContain(`${PATH}/${made.id}/qr.png`);
    expect(paths).toContain(PATH);
  });
});

describe('checkout page uploads per address', () => {
  it('refuses an address past CHECKOUT_UPLOADS_PER_IP_PER_MIN with a page of its own, before reading the picture', async () => {
    const app = await startApp({ env: { PUBLIC_URL, SECRETS_KEY, CHECKOUT_UPLOADS_PER_IP_PER_MIN: '1' } });
    try {
      const merchant = await shop(app, 5);
      const made = (await create(app, merchant, { amount: 5, reference: 'ip' })).body.data;
      const url = app.publicUrl + made.checkoutUrl.slice(PUBLIC_URL.length);
      const post = () => fetch(url, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
      expect((await post()).status).toBe(400);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      // The page itself still opens.
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
