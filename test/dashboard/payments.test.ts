// The account page's payment requests in real Chromium, in English and
// Thai: a paid request with the slip that paid it, a pending one, and the
// unique-amount setting; the audit log's payment verdict of each
// verification sent for a request.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: payment requests on the account page', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let merchant: Shop;
  let transactionId: string;
  let refusedTx: string;

  beforeAll(async () => {
    t = await startDashboardTest({ env: { PUBLIC_URL: 'https://pay.example.com', SECRETS_KEY: 'e'.repeat(64) } });
    merchant = await shop(t.app, 5);
    const paid = (await create(t.app, merchant, { amount: 150, reference: 'ORDER-PAID-1' })).body.data;
    const verified = await t.app.post({ qrcode: slipFor({ amount: 150 }), paymentRequest: paid.id }, { 'x-api-key': merchant.apiKey });
    expect(verified.body.paymentRequest).toEqual({ id: paid.id, status: 'paid' });
    transactionId = verified.body.data.transactionId;
    const again = await t.app.post({ qrcode: slipFor({ amount: 150 }), paymentRequest: paid.id }, { 'x-api-key': merchant.apiKey });
    refusedTx = again.body.data.transactionId;
    await create(t.app, merchant, { amount: 99, reference: 'ORDER-OPEN-2' });
    // A slip the sandbox bank does not know: kept for re-checks, the request shown verifying.
    const late = (await create(t.app, merchant, { amount: 77, reference: 'ORDER-LATE-3' })).body.data;
    const kept = await t.app.post({ qrcode: sandboxQr({ amount: 77, outcome: 'not-found' }), paymentRequest: late.id }, { 'x-api-key': merchant.apiKey });
    expect(kept.status).toBe(202);
  });
  afterAll(() => t?.stop());

  const accountPage = async (token: string, locale?: 'th'): Promise<Page> => {
    const page = await t.signedIn(token);
    if (locale) await page.evaluate(() => localStorage.setItem('slipgate.locale', 'th'));
    await page.goto(`${t.app.adminUrl}/#/accounts/${merchant.accountId}`);
    if (locale) await page.reload();
    await page.locator('[data-testid="payments"] table').waitFor();
    return page;
  };

  it('lists the requests with their status and the slip that paid one', async () => {
    const page = await accountPage(t.app.tokens.viewer);
    const section = page.locator('[data-testid="payments"]');
    await expect(section.getByRole('heading', { name: 'Payment requests' }).count()).resolves.toBe(1);
    const text = (await section.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('Unique amounts: off.');
    expect(text).toContain('ORDER-PAID-1');
    expect(text).toContain('ORDER-OPEN-2');
    expect(text).toContain('paid');
    expect(text).toContain('pending');
    expect(text).toContain(transactionId);
    expect(text).toContain('verifying');
    expect(await section.getByTestId('verifying-slip').innerText()).toMatch(/^Checking slip \*+\w{4} · /);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-payments-en');
  });

  it('speaks Thai', async () => {
    const page = await accountPage(t.app.tokens.viewer, 'th');
    const text = (await page.locator('[data-testid="payments"]').innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('คำขอชำระเงิน');
    expect(text).toContain('ชำระแล้ว');
    expect(text).toContain('รอชำระ');
    expect(text).toContain('กำลังตรวจสอบสลิป');
    expect(text).toContain('ยอดไม่ซ้ำ: ปิด');
  });

  it('the audit log says what each slip did to the request it was sent for, in both languages', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.goto(`${t.app.adminUrl}/#/audit?accountId=${merchant.accountId}`);
    const rowOf = (tx: string) => page.locator('section.results tbody tr', { hasText: tx });
    await rowOf(transactionId).waitFor();
    expect(await rowOf(transactionId).getByTestId('payment-verdict').innerText()).toBe('paid its request');
    const refused = rowOf(refusedTx).getByTestId('payment-verdict');
    expect(await refused.innerText()).toBe('did not pay: already paid');
    expect(await refused.getAttribute('title')).toMatch(/^Sent for payment request pr_\w+, paid after this slip\.$/);
    await page.getByRole('group', { name: /Language/ }).getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { level: 1, name: 'บันทึกตรวจสอบ' }).waitFor();
    await rowOf(refusedTx).waitFor();
    expect(await rowOf(refusedTx).getByTestId('payment-verdict').innerText()).toBe('ไม่ได้ชำระคำขอ: คำขอชำระแล้ว');
    await page.context().close();
  });

  it('support staff create a request, copy its checkout link and cancel it; a viewer sees the link but no form', async () => {
    const viewer = await accountPage(t.app.tokens.viewer);
    expect(await viewer.locator('#payment-amount').count()).toBe(0);
    expect(await viewer.locator('[data-testid="checkout-link"]').first().inputValue()).toMatch(/^https:\/\/pay\.example\.com\/checkout\/pr_/);
    const page = await accountPage(t.app.tokens.support);
    await page.locator('#payment-amount').fill('320.50');
    await page.locator('#payment-reference').fill('PHONE-ORDER-3');
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByTestId('payments').getByText('Payment request for PHONE-ORDER-3 created.').waitFor();
    const made = (await t.app.store.findPaymentRequest(merchant.accountId, 'PHONE-ORDER-3'))!;
    expect(made.amount).toBe(32_050);
    const link = page.getByRole('textbox', { name: 'Checkout link of PHONE-ORDER-3' });
    expect(await link.inputValue()).toMatch(new RegExp(`^https://pay\\.example\\.com/checkout/${made.id}/[A-Za-z0-9_-]{22}$`));
    await page.locator('[data-testid="payments"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-payments-create');
    const row = page.locator('[data-testid="payments"] tr', { hasText: 'PHONE-ORDER-3' });
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('payments').getByText('Payment request PHONE-ORDER-3 cancelled.').waitFor();
    expect((await t.app.store.getPaymentRequest(made.id))?.status).toBe('cancelled');
    // A bad amount is the API's own message, and makes nothing.
    await page.locator('#payment-amount').fill('-5');
    await page.locator('#payment-reference').fill('PHONE-ORDER-4');
    await page.getByRole('button', { name: 'Create request' }).click();
    expect(await page.locator('[data-testid="payments-error"]').innerText()).toContain('amount must be a positive number');
    expect(await t.app.store.findPaymentRequest(merchant.accountId, 'PHONE-ORDER-4')).toBeNull();
  });
});
