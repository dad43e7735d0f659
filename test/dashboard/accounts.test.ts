// Sign-in, accounts, account detail and the error states (bad token, ended
// session, network failure), in real Chromium against a real slipgate with
// real verifications through the public route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminTokenService } from '../../src/domain/admin/tokens.js';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { bangkokClock, screenshot, signIn, startDashboardTest, type DashboardTest } from './helpers.js';

const transRef = (qr: string) => {
  const parsed = parseSlipQr(qr);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.slip.transRef;
};

describe('dashboard: sign-in, accounts and account detail', { timeout: 60_000 }, () => {
  let t: DashboardTest;
  let somchai: string;
  const verified: { transRef: string; createdAt: string; amount: string }[] = [];

  beforeAll(async () => {
    t = await startDashboardTest();
    const { accounts } = t.app;
    const shop = await accounts.createAccount({ name: 'ร้านสมชาย', credits: 50, actor: 'test' });
    somchai = shop.account.id;
    const coffee = await accounts.createAccount({ name: 'Bangkok Coffee Co.', credits: 1200, actor: 'test' });
    await accounts.createApiKey(coffee.account.id, ['203.0.113.0/24', '2001:db8::/32']);
    await accounts.createAccount({ name: 'ร้านกาแฟ ดีดี', credits: 8, actor: 'test' });
    for (const [amount, shown] of [
      [250, '฿250.00'],
      [1234.5, '฿1,234.50'],
      [99.99, '฿99.99'],
    ] as const) {
      const qr = sandboxQr({ amount, bank: '014' });
      const res = await t.app.verify(shop.apiKey.secret, qr);
      expect(res.body.status).toBe('success');
      verified.push({ transRef: transRef(qr), createdAt: '', amount: shown });
    }
    expect((await t.app.verify(shop.apiKey.secret, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    expect((await t.app.verify(shop.apiKey.secret, 'not a slip')).body.status).toBe('error');
    const nodes = dataOf(await t.app.gql('viewer', '{ verifyTransactions(first: 10) { nodes { transactionId createdAt } } }')).verifyTransactions.nodes;
    for (const v of verified) v.createdAt = nodes.find((n: { transactionId: string }) => n.transactionId === v.transRef).createdAt;
  });

  afterAll(async () => {
    await t?.stop();
  });

  it('refuses a wrong token with a clear message and never puts the token in the address', async () => {
    const page = await t.open();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await screenshot(page, 'sign-in');
    await signIn(page, 'sgadm_thisTokenDoesNotExist');
    const alert = page.locator('#sign-in-message .notice.error');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('This token was not accepted');
    expect(page.url()).not.toContain('sgadm_');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.context().close();
  });

  it('signs in, finds ร้านสมชาย by a Thai search and shows its verifications', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    expect(page.url()).not.toContain('sgadm_');
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([t.app.tokens.viewer]);
    expect(await page.locator('.who').innerText()).toContain('viewer');
    // All three accounts, Thai names marked as Thai for screen readers.
    await page.locator('tbody tr').nth(2).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    expect(await page.locator('td [lang="th"]', { hasText: 'ร้านสมชาย' }).count()).toBe(1);
    await screenshot(page, 'accounts');

    await page.getByLabel('Search by name or account ID').fill('สมชาย');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Accounts matching “สมชาย”' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const cells = await rows.first().locator('td').allInnerTexts();
    expect(cells[0]).toBe('ร้านสมชาย');
    expect(cells[1]).toBe(somchai);
    expect(cells[2]).toBe('47'); // 50 - 3 verifications
    expect(cells[4]).toBe('3');
    expect(cells[5]).toContain('1 active');

    await page.getByRole('link', { name: 'ร้านสมชาย', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'ร้านสมชาย' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await page.getByTestId('balance').innerText()).toBe('47 credits');
    const activity = page.locator('section[aria-labelledby="activity-h"] tbody tr');
    expect(await activity.count()).toBe(5);
    const activityText = await page.locator('section[aria-labelledby="activity-h"]').innerText();
    for (const v of verified) {
      expect(activityText).toContain(v.transRef);
      expect(activityText).toContain(v.amount);
      // Bangkok wall-clock time, although the browser runs in New York.
      const cell = page.locator(`time[datetime="${v.createdAt}"]`).first();
      expect(await cell.innerText()).toContain(bangkokClock(v.createdAt));
    }
    expect(activityText).toContain('slip not found');
    expect(activityText).toContain('invalid qr');
    const chart = page.getByRole('img', { name: /^Usage per day/ });
    expect(await chart.getAttribute('aria-label')).toContain('3 successes, 2 failures, 3 credits spent');
    expect(await chart.locator('rect').count()).toBe(3); // one day: successes, failures, credits
    await screenshot(page, 'account-detail');
    await page.evaluate(() => {
      document.getElementById('activity-h')?.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -16);
    });
    await screenshot(page, 'account-activity');
    await page.context().close();
  });

  it('shows which addresses each API key may be used from', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.locator('tbody tr').nth(2).waitFor();
    await page.getByRole('link', { name: 'Bangkok Coffee Co.', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Bangkok Coffee Co.' }).waitFor();
    const keyRows = page.locator('table:has(th:text("Allowed addresses")) tbody tr');
    await keyRows.first().waitFor();
    const texts = await keyRows.allInnerTexts();
    expect(texts).toHaveLength(2);
    expect(await keyRows.locator('ul.chips li').allInnerTexts()).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    expect(texts.filter((r) => /\bany\b/.test(r))).toHaveLength(1);
    await page.context().close();
  });

  it('support renames an account from its page; a viewer gets no rename form', async () => {
    const { account } = await t.app.accounts.createAccount({ name: 'Old Noodle Name', credits: 0, actor: 'test' });
    const viewer = await t.signedIn(t.app.tokens.viewer);
    await viewer.goto(`${t.app.adminUrl}/#/accounts/${account.id}`);
    await viewer.getByRole('heading', { level: 1, name: 'Old Noodle Name' }).waitFor();
    expect(await viewer.getByTestId('rename').count()).toBe(0);
    await viewer.context().close();

    const page = await t.signedIn(t.app.tokens.support);
    await page.goto(`${t.app.adminUrl}/#/accounts/${account.id}`);
    await page.getByRole('heading', { level: 1, name: 'Old Noodle Name' }).waitFor();
    await page.getByText('Rename', { exact: true }).click();
    await page.getByLabel('New name (shown to customers on the checkout page)').fill('  ก๋วยเตี๋ยว Noodles  ');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { level: 1, name: 'ก๋วยเตี๋ยว Noodles' }).waitFor();
    expect((await t.app.store.getAccount(account.id))?.name).toBe('ก๋วยเตี๋ยว Noodles');
    expect(await page.title()).toContain('ก๋วยเตี๋ยว Noodles');
    await page.context().close();
  });

  it('is usable from the keyboard: the nav links are reachable and marked current', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    // A reload keeps the session (sessionStorage) and starts focus at the top.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    await page.keyboard.press('Tab'); // skip link first
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Audit log');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current')).toBe('page');
    await page.context().close();
  });

  it('sends the operator back to sign-in with a message when the token is revoked mid-session', async () => {
    const tokens = new AdminTokenService(t.app.store);
    const { token, secret } = await tokens.create({ name: 'short-lived', role: 'viewer', actor: 'test' });
    const page = await t.signedIn(secret);
    expect(await tokens.revoke(token.id, 'test')).toBe(true);
    await page.getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.locator('#sign-in-message').innerText()).toContain('Your session ended');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.context().close();
  });

  it('says so when slipgate cannot be reached, and recovers on retry', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.route('**/graphql', (route) => route.abort('internetdisconnected'));
    await page.getByRole('link', { name: 'Upstreams' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Cannot reach slipgate (network error)');
    await page.unroute('**/graphql');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody tr').first().innerText()).toContain('sandbox');
    await page.context().close();
  });
});
