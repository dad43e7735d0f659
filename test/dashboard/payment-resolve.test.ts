// Staff resolution on the account page in real Chromium: support staff
// attach a verified slip of another amount to its open order (the API's
// refusal shown as it says, nothing changed, then paid); a viewer gets no
// button. The form speaks Thai too.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: staff resolution of a payment request', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let merchant: Shop;
  let orderId: string;
  let verificationId: string;
  let transactionId: string;

  beforeAll(async () => {
    t = await startDashboardTest();
    merchant = await shop(t.app, 5);
    orderId = (await create(t.app, merchant, { amount: 80, reference: 'LINE-ORDER-7' })).body.data.id;
    const sent = await t.app.post({ qrcode: slipFor({ amount: 79 }), paymentRequest: orderId }, { 'x-api-key': merchant.apiKey });
    expect(sent.body.paymentRequest).toEqual({ id: orderId, status: 'pending', reason: 'amount_mismatch' });
    verificationId = (await t.app.store.listVerifyTransactions({ accountId: merchant.accountId, limit: 1 })).items[0]!.id;
    transactionId = sent.body.data.transactionId;
  });
  afterAll(() => t?.stop());

  const accountPage = async (token: string): Promise<Page> => {
    const page = await t.signedIn(token);
    await page.goto(`${t.app.adminUrl}/#/accounts/${merchant.accountId}`);
    await page.locator('[data-testid="payments"] table').waitFor();
    return page;
  };

  it('a viewer has no resolve button', async () => {
    const page = await accountPage(t.app.tokens.viewer);
    expect(await page.getByTestId('resolve-open').count()).toBe(0);
    await page.context().close();
  });

  it('the form speaks Thai', async () => {
    const page = await t.signedIn(t.app.tokens.support);
    await page.evaluate(() => localStorage.setItem('slipgate.locale', 'th'));
    await page.goto(`${t.app.adminUrl}/#/accounts/${merchant.accountId}`);
    await page.reload();
    await page.locator('[data-testid="payments"] tr', { hasText: 'LINE-ORDER-7' }).getByRole('button', { name: 'ผูกกับสลิป…' }).click();
    const form = page.getByTestId('payment-resolve');
    expect(await form.getByRole('heading').innerText()).toBe('สลิปที่ตรวจแล้วชำระ LINE-ORDER-7');
    await form.getByRole('button', { name: 'บันทึกว่าชำระด้วยสลิปนี้' }).waitFor();
    await page.context().close();
  });

  it('support staff attach the slip by its transaction reference: a wrong one is refused and changes nothing, the right one pays the order', async () => {
    const page = await accountPage(t.app.tokens.support);
    const row = page.locator('[data-testid="payments"] tr', { hasText: 'LINE-ORDER-7' });
    await row.getByRole('button', { name: 'Resolve with a slip…' }).click();
    const form = page.getByTestId('payment-resolve');
    const slipField = form.getByLabel('The slip: its transaction reference (on the slip, in the audit log) or verification id (req_…)');
    await slipField.fill('req_nope');
    await form.getByRole('button', { name: 'Mark paid by this slip' }).click();
    expect(await page.getByTestId('payments-error').innerText()).toContain('verification not found');
    await slipField.fill('NOSUCHTRANSACTION123');
    await form.getByRole('button', { name: 'Mark paid by this slip' }).click();
    await page.getByText('No verified slip of this account has the transaction reference NOSUCHTRANSACTION123.').waitFor();
    expect((await t.app.store.getPaymentRequest(orderId))?.status).toBe('pending');

    // The reference printed on the customer's slip (the audit log shows it too) finds its verification.
    await slipField.fill(transactionId);
    await form.getByLabel('Note: why').fill('paid 79, shop accepts');
    await page.locator('[data-testid="payments"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'account-payments-resolve');
    await form.getByRole('button', { name: 'Mark paid by this slip' }).click();
    await page.getByTestId('payments').getByText('Payment request LINE-ORDER-7 is paid by the slip.').waitFor();
    expect(await t.app.store.getPaymentRequest(orderId)).toMatchObject({ status: 'paid', paidBy: { verificationId } });
    expect(await page.getByTestId('payment-resolve').count()).toBe(0);
    expect((await row.innerText()).replace(/\s+/g, ' ')).toContain('paid');
    const events = (await t.app.store.listAdminEvents({ targetId: merchant.accountId, limit: 20 })).items.filter((e) => e.action === 'resolvePaymentRequest');
    expect(events.map((e) => [e.actor, e.reason])).toEqual([[expect.stringMatching(/support-token$/), 'paid 79, shop accepts']]);
    await page.context().close();
  });
});
