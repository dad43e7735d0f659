// The account page's key table and ledger, role-gated controls, date filters
// in the operator's language and GraphiQL from a dashboard session, in real
// Chromium, in English and Thai.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { BROWSER_TIMEZONE, screenshot, startDashboardTest, VIEWPORT, type DashboardTest } from './helpers.js';

const RANGES = ['203.0.113.0/24', '2001:db8:1234:5678::/64', '198.51.100.7/32'];

describe('dashboard: keys, ledger actors, roles, date filters, GraphiQL', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let accountId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startDashboardTest();
    const { account, apiKey } = await t.app.accounts.createAccount({ name: 'ร้านกาแฟ ดีดี สาขาสีลม', credits: 20, actor: 'test' });
    accountId = account.id;
    await t.app.accounts.createApiKey(accountId, RANGES);
    await t.app.accounts.topUp({ accountId, credits: 5, reason: 'cash at the counter', actor: 'cli:somchai', idempotencyKey: 'cli-1' });
    const topUp = `mutation { topUpCredits(accountId: "${accountId}", credits: 7, reason: "invoice 12", idempotencyKey: "dash-12") { created } }`;
    expect(dataOf(await t.app.gql('support', topUp)).topUpCredits.created).toBe(true);
    expect((await t.app.verify(apiKey.secret, sandboxQr({ amount: 99 }))).body.status).toBe('success');
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await t?.stop();
  });

  const open = async (locale: 'en-GB' | 'th-TH', token: string): Promise<Page> => {
    const context = await t.browser.newContext({ viewport: VIEWPORT, timezoneId: BROWSER_TIMEZONE, locale, deviceScaleFactor: 1 });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.app.adminUrl}/`);
    await page.locator('#token').fill(token);
    await page.locator('main.sign-in button[type="submit"]').click();
    await page.locator('header.top .who').waitFor();
    return page;
  };

  /** Rendered lines of an element: its height over its line height. */
  const lines = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((els) =>
      els.map((el) => {
        const style = getComputedStyle(el);
        const lineHeight = Number.parseFloat(style.lineHeight) || Number.parseFloat(style.fontSize) * 1.3;
        return Math.round(el.getBoundingClientRect().height / lineHeight);
      }),
    );

  for (const locale of ['en-GB', 'th-TH'] as const) {
    it(`keeps the key column readable with three allowed ranges (${locale})`, async () => {
      const page = await open(locale, t.app.tokens.admin);
      await page.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
      const keys = page.locator('section[aria-labelledby="keys-h"] tbody tr');
      await keys.first().waitFor();
      const locked = keys.filter({ has: page.locator('ul.chips') });
      expect(await locked.locator('ul.chips li').allInnerTexts()).toEqual(RANGES);
      // The prefix never wraps, and each range stays whole on its chip.
      const keySelector = 'section[aria-labelledby="keys-h"] code.key';
      expect(await lines(page, keySelector)).toEqual([1, 1]);
      expect(await lines(page, 'section[aria-labelledby="keys-h"] ul.chips li')).toEqual([1, 1, 1]);
      const keyIds = (await t.app.store.listApiKeys(accountId)).map((k) => k.id);
    for (const title of await page.locator(keySelector).evaluateAll((els) => els.map((el) => el.getAttribute('title') ?? ''))) {
      expect(keyIds.some((id) => title.includes(id))).toBe(true);
    }
      await page.evaluate(() => {
        document.getElementById('keys-h')?.scrollIntoView({ block: 'start' });
        window.scrollBy(0, -16);
      });
      await screenshot(page, locale === 'en-GB' ? 'account-keys' : 'th-account-keys');
      // The ledger names who changed the balance: token name and role, or the CLI user.
      const by = await page.locator('[data-testid="ledger"] tbody tr td:last-child').allInnerTexts();
      expect(by).toContain(locale === 'en-GB' ? 'support-token · support' : 'support-token · ฝ่ายสนับสนุน');
      expect(by).toContain(locale === 'en-GB' ? 'somchai · command line' : 'somchai · บรรทัดคำสั่ง');
      expect(by.join(' ')).not.toMatch(/admin:adm_|cli:/);
    });
  }

  it('disables top-up controls for a viewer and offers GraphiQL to admins only', async () => {
    const viewer = await open('en-GB', t.app.tokens.viewer);
    await viewer.goto(`${t.app.adminUrl}/#/accounts/${accountId}`);
    const topUp = viewer.getByRole('button', { name: 'Top up credits' });
    await topUp.waitFor();
    expect(await topUp.isDisabled()).toBe(true);
    expect(await viewer.locator('form.graphiql').count()).toBe(0);

    const admin = await open('en-GB', t.app.tokens.admin);
    expect(await admin.getByRole('link', { name: 'Top up ร้านกาแฟ ดีดี สาขาสีลม' }).count()).toBe(1);
    const [graphiql] = await Promise.all([admin.waitForEvent('popup'), admin.getByRole('button', { name: 'GraphiQL' }).click()]);
    // GraphiQL's own first request (the schema) goes out with the session's token, and is answered.
    const answered = await graphiql.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST');
    expect(answered.status()).toBe(200);
    expect(await answered.request().headerValue('authorization')).toBe(`Bearer ${t.app.tokens.admin}`);
    expect(graphiql.url()).not.toContain('sgadm_');
    expect(await graphiql.title()).toContain('slipgate GraphiQL');
    // The form's field is emptied once sent: the token does not sit in the page.
    expect(await admin.locator('form.graphiql input[name="token"]').inputValue()).toBe('');
  });

  it('serves GraphiQL for a posted token to the admin role only, never cached', async () => {
    const post = (token: string | null) =>
      fetch(`${t.app.adminUrl}/graphiql`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: token === null ? '' : new URLSearchParams({ token }).toString(),
      });
    const [none, viewer, support, admin] = await Promise.all([post(null), post(t.app.tokens.viewer), post(t.app.tokens.support), post(t.app.tokens.admin)]);
    expect([none.status, viewer.status, support.status, admin.status]).toEqual([401, 403, 403, 200]);
    expect(admin.headers.get('cache-control')).toBe('no-store');
    expect(await admin.text()).toContain('<html');
    expect((await fetch(`${t.app.publicUrl}/graphiql`, { method: 'POST', body: new URLSearchParams({ token: t.app.tokens.admin }) })).status).toBe(404);
  });

  it("GraphiQL's page shows no token name, runs only its own script under a Content-Security-Policy, and still works", async () => {
    const hostile = '</title></script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const { secret } = await t.app.adminTokens.create({ name: hostile, role: 'admin', actor: 'test' });
    const context = await t.browser.newContext({ viewport: VIEWPORT });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${t.app.adminUrl}/`);
    // What the dashboard's GraphiQL button does: a form post with the token in its body.
    const [answer, schema] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/graphiql')),
      page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST'),
      page.evaluate((token) => {
        const form = Object.assign(document.createElement('form'), { method: 'POST', action: '/graphiql' });
        form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: 'token', value: token }));
        document.body.append(form);
        form.submit();
      }, secret),
    ]);
    const policy = answer.headers()['content-security-policy'];
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(await answer.text()).not.toContain('__pwned');
    expect(schema.status()).toBe(200);
    expect(await page.title()).toBe('slipgate GraphiQL');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(violations).toEqual([]);
  });

  it("yoga's own GraphiQL page (GET /graphql with a bearer token) runs under the same policy", async () => {
    const context = await t.browser.newContext({ viewport: VIEWPORT, extraHTTPHeaders: { authorization: `Bearer ${t.app.tokens.admin}` } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const [answer, schema] = await Promise.all([
      page.goto(`${t.app.adminUrl}/graphql`),
      page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST'),
    ]);
    expect(answer!.headers()['content-security-policy']).toMatch(/script-src 'sha256-/);
    expect(schema.status()).toBe(200);
    expect(violations).toEqual([]);
  });

  it('takes date filters as the operator writes them: Buddhist era in Thai, day/month/year in English', async () => {
    const now = Date.now();
    const bangkok = (ms: number) => new Date(ms + 7 * 3_600_000).toISOString();
    const typed = (ms: number, era: number) => {
      const c = bangkok(ms);
      return `${c.slice(8, 10)}/${c.slice(5, 7)}/${Number(c.slice(0, 4)) + era} ${c.slice(11, 16)}`;
    };

    const thai = await open('th-TH', t.app.tokens.viewer);
    await thai.goto(`${t.app.adminUrl}/#/audit?account=${accountId}`);
    const from = thai.getByLabel('ตั้งแต่ (เวลากรุงเทพฯ)');
    expect(await from.getAttribute('placeholder')).toBe('วว/ดด/ปปปป ชช:นน');
    expect(await from.getAttribute('type')).not.toBe('datetime-local');
    await from.fill(typed(now - 3_600_000, 543));
    await thai.getByRole('button', { name: 'ค้นหา', exact: true }).click();
    await thai.locator('section.results tbody tr').first().waitFor();
    // The address keeps the Gregorian Bangkok time, so a shared link means the same in either language.
    expect(decodeURIComponent(thai.url())).toContain(`from=${bangkok(now - 3_600_000).slice(0, 16)}`);
    await from.fill(typed(now + 3_600_000, 543));
    await thai.getByRole('button', { name: 'ค้นหา', exact: true }).click();
    await thai.locator('section.results .empty').waitFor();

    const english = await open('en-GB', t.app.tokens.viewer);
    await english.goto(`${t.app.adminUrl}/#/audit?from=${bangkok(now - 3_600_000).slice(0, 16)}`);
    const enFrom = english.getByLabel('From (Bangkok time)');
    expect(await enFrom.getAttribute('placeholder')).toBe('dd/mm/yyyy hh:mm');
    expect(await enFrom.inputValue()).toBe(typed(now - 3_600_000, 0));
    const before = english.url();
    await enFrom.fill('31/02/2026 10:00');
    await english.getByRole('button', { name: 'Search', exact: true }).click();
    expect(await enFrom.evaluate((el) => (el as HTMLInputElement).validationMessage)).toContain('day/month/year');
    expect(english.url()).toBe(before);
  });
});
