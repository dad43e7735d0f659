// The account page's webhooks in real Chromium, in English and Thai: the
// endpoint (never its secret), a failed delivery with its last attempt, and
// the redeliver button, live for support and disabled for a viewer.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually } from '../helpers/child.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: webhooks on the account page', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let receiver: Receiver;
  let accountId: string;
  let deliveryId: string;
  let secret: string;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    // A failed attempt is retried an hour later: the page shows it pending, with one attempt.
    t = await startDashboardTest({ env: { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '3600000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const { account, apiKey } = await t.app.accounts.createAccount({ name: 'ร้านข้าวมันไก่ Hook', credits: 5, actor: 'test' });
    accountId = account.id;
    ({ secret } = await t.app.webhooks.add('admin:test', accountId, { url: receiver.url }));
    expect((await t.app.verify(apiKey.secret, sandboxQr({ amount: 45 }))).body.status).toBe('success');
    await eventually(async () => (await t.app.store.listWebhookDeliveries({ accountId, limit: 1 })).items[0]?.attempts.length === 1);
    deliveryId = (await t.app.store.listWebhookDeliveries({ accountId, limit: 1 })).items[0]!.id;
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  const accountPage = async (token: string, locale?: 'th'): Promise<Page> => {
    const page = await t.signedIn(token);
    if (locale) await page.evaluate(() => localStorage.setItem('slipgate.locale', 'th'));
    await page.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
    if (locale) await page.reload();
    await page.locator('[data-testid="webhooks"] table').last().waitFor();
    return page;
  };

  it('shows the endpoint and the failed delivery, and support redelivers it', async () => {
    const page = await accountPage(t.app.tokens.support);
    const section = page.locator('[data-testid="webhooks"]');
    await expect(section.getByRole('heading', { name: 'Webhooks' }).count()).resolves.toBe(1);
    const text = (await section.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(receiver.url);
    expect(text).toContain('verification succeeded');
    expect(text).toContain('pending');
    expect(text).toContain('HTTP 503 ·');
    expect(await page.content()).not.toContain(secret);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-webhooks-en');

    await section.getByRole('button', { name: 'Redeliver' }).click();
    await section.getByRole('button', { name: 'Redelivery queued' }).waitFor();
    // Sent again at once: a second attempt is recorded.
    await eventually(async () => (await t.app.store.getWebhookDelivery(deliveryId))!.attempts.length === 2);
    const events = await t.app.store.listAdminEvents({ targetId: deliveryId, limit: 5 });
    expect(events.items).toEqual([expect.objectContaining({ action: 'redeliverWebhook', actor: expect.stringMatching(/support-token/), reason: 'dashboard' })]);
  });

  it('speaks Thai, and a viewer sees the button disabled', async () => {
    const page = await accountPage(t.app.tokens.viewer, 'th');
    const section = page.locator('[data-testid="webhooks"]');
    const text = (await section.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('เว็บฮุก');
    expect(text).toContain('ตรวจสลิปสำเร็จ');
    const button = section.getByRole('button', { name: 'ส่งอีกครั้ง' });
    expect(await button.isDisabled()).toBe(true);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-webhooks-th');
  });
});
