// The audit log's Download CSV in real Chromium: the file holds the records
// of the filter on screen (all of them, not one page), Thai intact, and the
// admin token travels in a header, never in an address.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: audit log download', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let shop = '';
  beforeAll(async () => {
    t = await startDashboardTest();
    const a = await t.app.accounts.createAccount({ name: 'ร้านสมชาย', credits: 100, actor: 'test' });
    const b = await t.app.accounts.createAccount({ name: 'Other', credits: 100, actor: 'test' });
    shop = a.account.id;
    // 30: more than the page's 25 rows.
    for (let i = 0; i < 30; i++) expect((await t.app.verify(a.apiKey.secret, sandboxQr({ amount: 100 + i }))).body.status).toBe('success');
    expect((await t.app.verify(b.apiKey.secret, sandboxQr())).body.status).toBe('success');
  });
  afterAll(() => t?.stop());

  it('downloads every record of the current filter as CSV', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await page.goto(`${t.app.adminUrl}/#/audit`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.getByLabel('Account ID').fill(shop);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^slipgate-verifications-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.startsWith('\uFEFFrecord,time,')).toBe(true);
    const rows = text.trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(30);
    for (const row of rows) expect(row).toContain(`,${shop},`);
    expect(rows.map((r) => r.split(',')[7]).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `${100 + i}.00`).sort());
    expect(rows[0]).toMatch(/[\u0E00-\u0E7F]/);
    expect(urls.some((u) => u.includes('/export/audit.csv?') && u.includes(`accountId=${shop}`))).toBe(true);
    expect(urls.filter((u) => u.includes(t.app.tokens.viewer))).toEqual([]);
    await page.context().close();
  });
});
