// The account page's receiving accounts in real Chromium: support adds a
// receiver and sets the policy (a refused input shows the API's own words and
// changes nothing), a refused slip (1025) shows in the activity, and a viewer
// sees everything but cannot change it; in English and Thai.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: receiving accounts and the receiver policy', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  beforeAll(async () => {
    t = await startDashboardTest();
  });
  afterAll(() => t?.stop());

  it('support registers a receiver, is refused a bad one, sets require; the refused slip shows as receiver not registered', async () => {
    const { accountId, apiKey } = await t.app.account(5);
    const page = await t.signedIn(t.app.tokens.support);
    await page.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
    const section = page.getByTestId('receivers');
    await section.getByText('No receiving accounts registered.').waitFor();

    // Require with no receiver: the API refuses, the page says why, nothing changes.
    await section.getByLabel('Receiver policy').selectOption('REQUIRE');
    await section.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => section.getByTestId('receivers-error').innerText()).toMatch(/require needs at least one active registered receiver/);
    expect((await t.app.store.getAccount(accountId))?.receiverPolicy).toBe('off');

    // A KBANK account of 9 digits is refused in the API's words.
    await section.getByLabel('Bank', { exact: true }).selectOption('004');
    await section.getByLabel('Number').fill('123-4-5678-9');
    await section.getByLabel('Name (as the bank prints it)').fill('บจก. ร้านกาแฟ ดีดี');
    await section.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => section.getByTestId('receivers-error').innerText()).toBe('a KBANK (004) account number has 10 digits, not 9');
    expect(await t.app.store.listReceivers(accountId)).toEqual([]);

    await section.getByLabel('Number').fill('123-4-56789-0');
    await section.getByLabel('Label (branch, till)').fill('หน้าร้าน');
    await section.getByRole('button', { name: 'Add', exact: true }).click();
    await section.getByText('The receiving account was added.').waitFor();
    const row = section.locator('tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.first().innerText()).toMatch(/004 Kasikornbank[\s\S]*1234567890[\s\S]*บจก. ร้านกาแฟ ดีดี[\s\S]*หน้าร้าน[\s\S]*active/i);

    await section.getByLabel('Receiver policy').selectOption('REQUIRE');
    await section.getByRole('button', { name: 'Save policy' }).click();
    await section.getByText('The receiver policy is now “require”.').waitFor();
    expect((await t.app.store.getAccount(accountId))?.receiverPolicy).toBe('require');
    const events = await t.app.store.listAdminEvents({ targetId: accountId, limit: 5 });
    expect(events.items.map((e) => [e.action, e.actor])).toEqual([
      ['setReceiverPolicy', expect.stringMatching(/support-token/)],
      ['addReceiver', expect.stringMatching(/support-token/)],
    ]);

    // A slip paid elsewhere is refused; the account page's activity shows it.
    const refused = await t.app.verify(apiKey, sandboxQr({ details: { receiverAccount: '9876543210', receiverBank: '004', receiverName: 'นาย ผู้อื่น' } }));
    expect(refused.body).toEqual({ status: 'error', code: 1025, message: 'receiver not registered' });
    await page.reload();
    const activity = page.locator('section[aria-labelledby="activity-h"] tbody tr');
    await activity.first().waitFor();
    expect(await activity.first().innerText()).toMatch(/receiver not registered[\s\S]*the bank named นาย ผู้อื่น, account xxx-x-x4321-x at 004/);
  });

  it('shows a viewer the receivers and policy in Thai, with no control to change them', async () => {
    const { accountId } = await t.app.account(1);
    await t.app.admin.addReceiver('test', { accountId, promptPay: '0812345678', nameTh: 'ร้านกาแฟ ดีดี', label: 'สาขา 2' });
    await t.app.admin.setReceiverPolicy('test', accountId, 'report');
    const context = await t.browser.newContext({ locale: 'th-TH' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.app.adminUrl}/`);
    await page.locator('#token').fill(t.app.tokens.viewer);
    await page.locator('main.sign-in button[type="submit"]').click();
    await page.locator('header.top .who').waitFor();
    await page.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
    const section = page.getByTestId('receivers');
    await section.getByRole('heading', { name: 'บัญชีรับเงิน' }).waitFor();
    await section.locator('tbody tr').first().waitFor();
    expect(await section.locator('tbody tr').first().innerText()).toMatch(/PromptPay มือถือ[\s\S]*0812345678[\s\S]*ร้านกาแฟ ดีดี[\s\S]*สาขา 2[\s\S]*เปิดใช้/);
    expect(await section.getByTestId('receiver-policy').innerText()).toBe('ผลสำเร็จทุกครั้งมี checks.receiver');
    expect(await section.locator('#receiver-policy').isDisabled()).toBe(true);
    expect(await section.locator('form.card').count()).toBe(0);
    expect(await section.getByRole('button').count()).toBe(0);
    await context.close();
  });
});
