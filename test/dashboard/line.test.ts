// The account page's LINE channels and the audit log's LINE badge in real
// Chromium, in English and Thai: the channel, its options and its webhook
// path, the secret and token only masked; its staff targets added and
// removed by support; verifications and failures that
// came through a LINE chat marked as such.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: LINE channels and slips', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let accountId: string;
  const secret = randomBytes(16).toString('hex');
  const token = randomBytes(40).toString('base64url');

  beforeAll(async () => {
    t = await startDashboardTest({ env: { SECRETS_KEY: randomBytes(32).toString('hex') } });
    const { account } = await t.app.accounts.createAccount({ name: 'ร้านชาไข่มุก LINE', credits: 5, actor: 'test' });
    accountId = account.id;
    await t.app.lineChannels.connect('admin:test', accountId, { channelId: '1650000042', channelSecret: secret, accessToken: token, lang: 'th' });
    // One slip of each kind, as the bridge records them.
    await t.app.store.holdCredit({ id: 'req_line_ok', accountId, keyId: 'line:1650000042', createdAt: new Date() });
    await t.app.store.settleHold({
      id: 'req_line_ok', accountId, keyId: 'line:1650000042', requestId: 'evt1', qrcode: slipQr('004', 'LINEOKTX0001'), transactionId: 'LINEOKTX0001', amount: 250,
      sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 5, response: { amount: 250 } as never, createdAt: new Date(), source: 'line', lineUserId: 'Uline0001',
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const open = async (path: string, ready: string, locale?: 'th'): Promise<Page> => {
    const page = await t.signedIn(t.app.tokens.viewer);
    if (locale) await page.evaluate(() => localStorage.setItem('slipgate.locale', 'th'));
    await page.goto(`${t.app.adminUrl}/#/${path}`);
    if (locale) await page.reload();
    await page.locator(ready).first().waitFor();
    return page;
  };

  it('shows the channel with its options and masked credentials, in English and Thai', async () => {
    for (const [locale, heading, lang] of [[undefined, 'LINE channels', 'Thai'], ['th', 'ช่อง LINE', 'ไทย']] as const) {
      const page = await open(`accounts/${accountId}`, '[data-testid="line-channels"] table', locale);
      const section = page.locator('[data-testid="line-channels"]');
      await expect(section.getByRole('heading', { name: heading }).count()).resolves.toBe(1);
      const text = (await section.innerText()).replace(/\s+/g, ' ');
      expect(text).toContain('1650000042');
      expect(text).toContain('/line/webhook/1650000042');
      expect(text).toContain(lang);
      expect(text).toContain('•••••••• / ••••••••');
      // Quiet by default: the hint column says off.
      expect(text).toContain(locale ? 'ตอบแชตที่ไม่ใช่สลิป' : 'Hint for chat');
      const html = await page.content();
      expect(html).not.toContain(secret);
      expect(html).not.toContain(token);
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, `account-line-${locale ?? 'en'}`);
      await page.context().close();
    }
  });

  it('support adds a staff target from the groups the bot is in, is refused a malformed id, removes it; a viewer only reads', async () => {
    const group = 'C' + '5'.repeat(32);
    await t.app.store.recordLineGroup({ channelId: '1650000042', groupId: group, kind: 'group', at: new Date(), present: true });
    const page = await t.signedIn(t.app.tokens.support);
    await page.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
    const section = page.locator('[data-testid="line-staff"]');
    await section.locator('form').waitFor();
    expect(await section.innerText()).toContain(group);
    const input = section.getByLabel('Add a LINE user (U…) or group (C…) id');
    await input.fill('staff-room');
    await section.getByRole('button', { name: 'Add target' }).click();
    await section.locator('[data-testid="line-staff-error"]').waitFor();
    expect(await section.locator('[data-testid="line-staff-error"]').innerText()).toContain('staff target must be a LINE user id');
    await input.fill(group);
    await section.getByRole('button', { name: 'Add target' }).click();
    await section.getByRole('status').filter({ hasText: 'Staff target added.' }).waitFor();
    expect((await t.app.store.listLineStaffTargets('1650000042')).map((x) => x.targetId)).toEqual([group]);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'account-line-staff-en');
    await section.getByRole('button', { name: 'Remove' }).click();
    await section.getByRole('status').filter({ hasText: 'Staff target removed.' }).waitFor();
    expect(await t.app.store.listLineStaffTargets('1650000042')).toEqual([]);
    await page.context().close();

    await t.app.lineChannels.addStaffTarget('admin:test', '1650000042', group);
    const viewer = await open(`accounts/${accountId}`, '[data-testid="line-staff"] table');
    const read = viewer.locator('[data-testid="line-staff"]');
    expect(await read.innerText()).toContain(group);
    expect(await read.locator('form').count()).toBe(0);
    expect(await read.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await viewer.context().close();
  });

  it('marks a verification that came through LINE in the audit log', async () => {
    const page = await open(`audit?accountId=${accountId}`, '[data-testid="via-line"]');
    expect(await page.locator('[data-testid="via-line"]').count()).toBe(1);
    await page.context().close();
  });
});
