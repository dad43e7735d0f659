// The account page's payment requests in real Chromium, in English and
// Thai: a paid request with the slip that paid it, a pending one, and the
// unique-amount setting; the audit log's payment verdict of each
// verification sent for a request.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: payment requests on the account page', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let merchant: Shop;
  let transactionId: string;
  let refusedTx: string;

  beforeAll(async () => {
    t = await startDashboardTest();
    merchant = await shop(t.app, 5);
    const paid = (await create(t.app, merchant, { amount: 150, reference: 'ORDER-PAID-1' })).body.data;
    const verified = await t.app.post({ qrcode: slipFor({ amount: 150 }), paymentRequest: paid.id }, { 'x-api-key': merchant.apiKey });
    expect(verified.body.paymentRequest).toEqual({ id: paid.id, status: 'paid' });
    transactionId = verified.body.data.transactionId;
    const again = await t.app.post({ qrcode: slipFor({ amount: 150 }), paymentRequest: paid.id }, { 'x-api-key': merchant.apiKey });
    refusedTx = again.body.data.transactionId;
    await create(t.app, merchant, { amount: 99, reference: 'ORDER-OPEN-2' });
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
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-payments-en');
  });

  it('speaks Thai', async () => {
    const page = await accountPage(t.app.tokens.viewer, 'th');
    const text = (await page.locator('[data-testid="payments"]').innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('คำขอชำระเงิน');
    expect(text).toContain('ชำระแล้ว');
    expect(text).toContain('รอชำระ');
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
});
