// Top-ups in real Chromium: a support token adds credits once even when the
// button is double-clicked; a viewer is told plainly that the role may not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { screenshot, startDashboardTest, type DashboardTest } from './helpers.js';

const LEDGER = `query ($id: ID!) { account(id: $id) { credits ledger(first: 20) { kind delta reason actor idempotencyKey } } }`;

describe('dashboard: top up', { timeout: 60_000 }, () => {
  let t: DashboardTest;
  let accountId: string;

  beforeAll(async () => {
    t = await startDashboardTest();
    const { account, apiKey } = await t.app.accounts.createAccount({ name: 'ร้านสมชาย', credits: 50, actor: 'test' });
    accountId = account.id;
    expect((await t.app.verify(apiKey.secret, sandboxQr({ amount: 120 }))).body.status).toBe('success');
  });

  afterAll(async () => {
    await t?.stop();
  });

  const ledger = async () => dataOf(await t.app.gql('admin', LEDGER, { id: accountId })).account;

  it('adds the credits exactly once on a double-click and shows the new balance', async () => {
    const page = await t.signedIn(t.app.tokens.support);
    await page.getByRole('link', { name: 'ร้านสมชาย', exact: true }).click();
    await page.getByRole('link', { name: 'Top up credits' }).click();
    await page.getByRole('heading', { level: 1, name: 'Top up credits' }).waitFor();
    expect(await page.getByTestId('current-balance').innerText()).toBe('49 credits');
    const key = await page.getByTestId('idempotency-key').innerText();
    expect(key).toMatch(/^dash-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const sent: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/graphql') && req.postData()?.includes('topUpCredits')) sent.push(req.postData()!);
    });
    await page.getByLabel('Credits to add').fill('500');
    await page.getByLabel('Reason').fill('ใบแจ้งหนี้ INV-2025-0042 paid');
    await page.getByRole('button', { name: 'Top up' }).dblclick();
    const done = page.getByTestId('top-up-done');
    await done.waitFor();
    expect(await done.innerText()).toBe('Added 500 credits to ร้านสมชาย. New balance: 549 credits.');
    expect(await page.getByTestId('current-balance').innerText()).toBe('549 credits');
    await screenshot(page, 'top-up');
    // The form locks on the first click: the second never leaves the browser.
    expect(sent).toHaveLength(1);

    const after = await ledger();
    expect(after.credits).toBe(549);
    const topUps = after.ledger.filter((e: { kind: string }) => e.kind === 'TOP_UP');
    expect(topUps).toEqual([
      { kind: 'TOP_UP', delta: 500, reason: 'ใบแจ้งหนี้ INV-2025-0042 paid', actor: expect.stringMatching(/^admin:adm_\w+:support-token$/), idempotencyKey: key },
    ]);

    // The account page's ledger shows that one entry too.
    await page.getByRole('link', { name: 'Back to the account' }).click();
    await page.getByRole('heading', { level: 1, name: 'ร้านสมชาย' }).waitFor();
    expect(await page.getByTestId('balance').innerText()).toBe('549 credits');
    const rows = page.getByTestId('ledger').locator('tbody tr');
    expect(await rows.count()).toBe(2); // the initial credits and this top-up
    expect(await rows.first().innerText()).toContain('+500');

    // A new form is a new top-up: a fresh key.
    await page.getByRole('link', { name: 'Top up credits' }).click();
    await page.getByRole('heading', { level: 1, name: 'Top up credits' }).waitFor();
    expect(await page.getByTestId('idempotency-key').innerText()).not.toBe(key);
    await page.context().close();
  });

  it('tells a viewer that the role cannot top up, with the form disabled, and the API refuses it too', async () => {
    const before = await ledger();
    const page = await t.signedIn(t.app.tokens.viewer);
    // The accounts list offers no working Top up link to a viewer either.
    expect(await page.getByRole('button', { name: 'Top up ร้านสมชาย' }).isDisabled()).toBe(true);
    expect(await page.getByRole('link', { name: 'Top up ร้านสมชาย' }).count()).toBe(0);
    await page.goto(`${t.app.adminUrl}/#/top-up?account=${accountId}`);
    await page.getByRole('heading', { level: 1, name: 'Top up credits' }).waitFor();
    expect(await page.locator('.notice.warn').innerText()).toContain('viewer role, which can look but cannot top up');
    for (const control of [page.getByLabel('Credits to add'), page.getByLabel('Reason'), page.getByRole('button', { name: 'Top up' })]) {
      expect(await control.isDisabled()).toBe(true);
    }
    await screenshot(page, 'top-up-viewer');
    // The page only mirrors the rule: the API is what refuses.
    const mutation = 'mutation { topUpCredits(accountId: "ACC", credits: 100, reason: "should not happen", idempotencyKey: "viewer-try") { created } }';
    const res = await t.app.gql('viewer', mutation.replace('ACC', accountId));
    expect(JSON.stringify(res)).toContain('FORBIDDEN');
    expect(await ledger()).toEqual(before);
    await page.context().close();
  });

  it('picks the account first when Top up is opened from the menu', async () => {
    const page = await t.signedIn(t.app.tokens.support);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Top up' }).click();
    await page.getByRole('heading', { level: 1, name: 'Top up credits' }).waitFor();
    await page.getByLabel('Account name or ID').fill('สมชาย');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('link', { name: 'Top up ร้านสมชาย' }).click();
    await page.getByTestId('current-balance').waitFor();
    expect(page.url()).toContain(`#/top-up?account=${accountId}`);
    await page.context().close();
  });
});
