// The audit log and upstream health in real Chromium, after real
// verifications through the public route over two sandbox domains: every
// filter, cursor paging, and finding a verification from a dropped slip image.
import type { Page } from 'playwright-core';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { clockPast } from '../helpers/clock.js';
import { dropFile, screenshot, slipImage, startDashboardTest, type DashboardTest } from './helpers.js';

const UPSTREAMS = JSON.stringify([
  { name: 'sandbox-a', provider: 'sandbox', weight: 1 },
  { name: 'sandbox-b', provider: 'sandbox', weight: 1 },
]);
const ALL = `{ verifyTransactions(first: 100) { nodes { transactionId upstream accountId sendingBank createdAt } }
  requestErrors(first: 100) { nodes { kind upstream accountId } } }`;

interface Row {
  transactionId: string;
  upstream: string;
  accountId: string;
  sendingBank: string;
  createdAt: string;
}

describe('dashboard: audit log and upstreams', { timeout: 90_000 }, () => {
  let t: DashboardTest;
  let shop: string;
  let cafe: string;
  let slipQr: string;
  let failedSlipQr: string;
  let rows: Row[];
  let failures: { kind: string; upstream: string | null; accountId: string | null }[];

  beforeAll(async () => {
    t = await startDashboardTest({ configuredNetwork: true, env: { UPSTREAMS } });
    const a = await t.app.accounts.createAccount({ name: 'ร้านสมชาย', credits: 100, actor: 'test' });
    const b = await t.app.accounts.createAccount({ name: 'ร้านกาแฟ ดีดี', credits: 100, actor: 'test' });
    shop = a.account.id;
    cafe = b.account.id;
    // 24 for the shop (mixed banks) + 4 for the café: more than one page of 25.
    for (let i = 0; i < 24; i++) {
      const res = await t.app.verify(a.apiKey.secret, sandboxQr({ bank: i % 3 === 0 ? '014' : '004', amount: 100 + i }));
      expect(res.body.status).toBe('success');
    }
    // The next batch starts in a later whole second: the time filter (whole seconds, Bangkok) can split the two.
    await clockPast(Math.floor(Date.now() / 1000) * 1000 + 999);
    for (let i = 0; i < 3; i++) expect((await t.app.verify(b.apiKey.secret, sandboxQr({ bank: '025', amount: 45.5 }))).body.status).toBe('success');
    slipQr = sandboxQr({ bank: '006', amount: 1890.75 });
    expect((await t.app.verify(b.apiKey.secret, slipQr)).body.status).toBe('success');
    failedSlipQr = sandboxQr({ bank: '004', outcome: 'not-found' });
    expect((await t.app.verify(a.apiKey.secret, failedSlipQr)).body.status).toBe('error');
    expect((await t.app.verify(a.apiKey.secret, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    expect((await t.app.verify(b.apiKey.secret, sandboxQr({ outcome: 'error' }))).body.status).toBe('error');
    expect((await t.app.verify(b.apiKey.secret, 'hello')).body.status).toBe('error');
    const all = dataOf(await t.app.gql('viewer', ALL));
    rows = all.verifyTransactions.nodes;
    failures = all.requestErrors.nodes;
    expect(rows).toHaveLength(28);
  });

  afterAll(async () => {
    await t?.stop();
  });

  /** The visible result rows' cells. */
  const resultRows = async (page: Page) => {
    await page.locator('section.results .loading').waitFor({ state: 'detached' });
    const body = page.locator('section.results tbody tr');
    const out: string[][] = [];
    for (let i = 0; i < (await body.count()); i++) out.push(await body.nth(i).locator('td').allInnerTexts());
    return out;
  };

  const search = async (page: Page) => {
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('section.results h2').waitFor();
  };

  it('lists verifications newest first and pages with cursors', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const first = await resultRows(page);
    expect(first).toHaveLength(25);
    expect(first.map((r) => r[2])).toEqual(rows.slice(0, 25).map((r) => r.transactionId));
    expect(first[0]![1]).toBe('ร้านกาแฟ ดีดี');
    expect(first[0]![3]).toBe('฿1,890.75');
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    const second = await resultRows(page);
    expect(second.map((r) => r[2])).toEqual(rows.slice(25).map((r) => r.transactionId));
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.getByText('Page 1', { exact: true }).waitFor();
    expect((await resultRows(page)).map((r) => r[2])).toEqual(first.map((r) => r[2]));
    await page.context().close();
  });

  it('filters by account, bank, upstream, time range, transaction and error kind', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.goto(`${t.app.adminUrl}/#/audit`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();

    await page.getByLabel('Account ID').fill(cafe);
    await search(page);
    expect((await resultRows(page)).map((r) => r[2])).toEqual(rows.filter((r) => r.accountId === cafe).map((r) => r.transactionId));
    // Filters live in the address (never the token), so a reload keeps them.
    expect(page.url()).toContain(`account=${cafe}`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    expect(await page.getByLabel('Account ID').inputValue()).toBe(cafe);
    expect(await resultRows(page)).toHaveLength(4);

    await page.getByLabel('Account ID').fill(shop);
    await page.getByLabel('Sending bank').selectOption('014');
    await search(page);
    const bank014 = rows.filter((r) => r.accountId === shop && r.sendingBank === '014');
    expect((await resultRows(page)).map((r) => r[2])).toEqual(bank014.map((r) => r.transactionId));
    expect(bank014.length).toBe(8);

    await page.getByLabel('Sending bank').selectOption('');
    await page.getByLabel('Account ID').fill('');
    await page.getByLabel('Upstream').fill('sandbox-b');
    await search(page);
    const viaB = rows.filter((r) => r.upstream === 'sandbox-b');
    expect((await resultRows(page)).map((r) => r[2])).toEqual(viaB.slice(0, 25).map((r) => r.transactionId));

    // Time range in Bangkok wall-clock, whole seconds: from the café's first verification on, then before it.
    await page.getByLabel('Upstream').fill('');
    const cafeRows = rows.filter((r) => r.accountId === cafe);
    // Typed as an English-speaking operator writes it: dd/mm/yyyy hh:mm:ss (the Thai test types the Buddhist era).
    const bangkokSecond = (iso: string) => {
      const c = new Date(Date.parse(iso) + 7 * 3_600_000).toISOString();
      return `${c.slice(8, 10)}/${c.slice(5, 7)}/${c.slice(0, 4)} ${c.slice(11, 19)}`;
    };
    const cafeStart = bangkokSecond(cafeRows[cafeRows.length - 1]!.createdAt);
    await page.getByLabel('From (Bangkok time)').fill(cafeStart);
    await search(page);
    expect((await resultRows(page)).map((r) => r[2])).toEqual(cafeRows.map((r) => r.transactionId));
    await page.getByLabel('To, exclusive (Bangkok time)').fill(cafeStart);
    await page.getByLabel('From (Bangkok time)').fill('');
    await search(page);
    expect((await resultRows(page)).map((r) => r[2])).toEqual(rows.filter((r) => r.accountId === shop).map((r) => r.transactionId));
    await page.getByLabel('To, exclusive (Bangkok time)').fill('');
    await page.getByLabel('From (Bangkok time)').fill('01/01/2099 00:00');
    await search(page);
    expect(await page.locator('section.results .empty').innerText()).toBe('No verifications match these filters.');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Transaction ID').fill(rows[7]!.transactionId);
    await search(page);
    expect((await resultRows(page)).map((r) => r[2])).toEqual([rows[7]!.transactionId]);

    // Failed requests: the transaction and bank fields apply there too (read from the QR).
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Failed requests (not charged)').check();
    expect(await page.getByLabel('Transaction ID').isDisabled()).toBe(false);
    expect(await page.getByLabel('Error kind').isDisabled()).toBe(false);
    await page.getByLabel('Error kind').selectOption('SLIP_NOT_FOUND');
    await search(page);
    const notFound = await resultRows(page);
    expect(notFound).toHaveLength(failures.filter((f) => f.kind === 'SLIP_NOT_FOUND').length);
    expect(notFound.every((r) => r[1] === 'ร้านสมชาย' && r[2] === 'slip not found')).toBe(true);
    await page.getByLabel('Error kind').selectOption('');
    await search(page);
    expect(await resultRows(page)).toHaveLength(failures.length);
    await screenshot(page, 'audit-log-failures');
    await page.context().close();
  });

  it('finds the verification of a dropped slip image', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.goto(`${t.app.adminUrl}/#/audit?account=${shop}`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.locator('section.results tbody tr').first().waitFor();
    const parsed = parseSlipQr(slipQr);
    if (!parsed.ok) throw new Error(parsed.reason);

    await dropFile(page, '[data-testid="slip-drop"]', { name: 'slip.jpg', mimeType: 'image/jpeg', bytes: await slipImage(slipQr) });
    await page.getByTestId('slip-trans-ref').waitFor();
    expect(await page.getByTestId('slip-trans-ref').innerText()).toBe(parsed.slip.transRef);
    expect(await page.locator('#slip-status').innerText()).toContain('006 Krungthai');
    // The account filter from before is cleared: a slip is found whoever verified it.
    expect(await page.getByLabel('Account ID').inputValue()).toBe('');
    expect(await page.getByLabel('Transaction ID').inputValue()).toBe(parsed.slip.transRef);
    await page.waitForFunction(() => document.querySelectorAll('section.results tbody tr').length === 1);
    const found = await resultRows(page);
    expect(found).toHaveLength(1);
    expect(found[0]![1]).toBe('ร้านกาแฟ ดีดี');
    expect(found[0]![2]).toBe(parsed.slip.transRef);
    expect(found[0]![3]).toBe('฿1,890.75');
    expect(await page.getByLabel('Sending bank').inputValue()).toBe('006');
    await page.getByTestId('slip-failures').waitFor();
    expect(await page.getByTestId('slip-failures').innerText()).toBe('No failed requests for this slip.');
    await screenshot(page, 'audit-log-slip-search');

    // A slip that was never verified: no verification, and its failure one click away.
    const failedSlip = parseSlipQr(failedSlipQr);
    if (!failedSlip.ok) throw new Error(failedSlip.reason);
    await dropFile(page, '[data-testid="slip-drop"]', { name: 'fake.jpg', mimeType: 'image/jpeg', bytes: await slipImage(failedSlipQr) });
    await page.locator('section.results').getByText(`No verification of transaction ${failedSlip.slip.transRef} matches`).waitFor();
    await page.getByTestId('slip-failures').getByText('1 failed request for this slip.').waitFor();
    await page.getByRole('button', { name: 'Show failed requests' }).click();
    await page.waitForFunction(() => document.querySelector('section.results h2')?.textContent?.startsWith('Failed requests'));
    const failedRows = await resultRows(page);
    expect(failedRows).toHaveLength(1);
    expect(failedRows[0]!.slice(1, 3)).toEqual(['ร้านสมชาย', 'slip not found']);
    expect(failedRows[0]![6]).toBe(failedSlip.slip.transRef);

    // The file picker works the same, and an image without a QR says so.
    const blank = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#ffffff' } }).png().toBuffer();
    await page.locator('#slip-file').setInputFiles({ name: 'blank.png', mimeType: 'image/png', buffer: blank });
    await page.locator('#slip-status .notice.error').waitFor();
    expect(await page.locator('#slip-status').innerText()).toContain('No QR code found in this image');

    // A QR that is not a slip (e.g. a web link) is named as such.
    await page.locator('#slip-file').setInputFiles({ name: 'link.png', mimeType: 'image/png', buffer: await QRCode.toBuffer('https://example.com/', { width: 300 }) });
    await page.getByText('The QR code in this image is not a bank slip QR').waitFor();
    await page.context().close();
  });

  it('shows the health of each upstream domain', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.getByRole('link', { name: 'Upstreams' }).click();
    await page.getByRole('heading', { level: 1, name: 'Upstreams' }).waitFor();
    await page.locator('tbody tr').nth(1).waitFor();
    const health = dataOf(await t.app.gql('viewer', '{ upstreams { name requests failures } }')).upstreams as { name: string; requests: number; failures: number }[];
    const table = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.innerText)));
    expect(table.map((r) => r[0])).toEqual(['sandbox-a', 'sandbox-b']);
    for (const [i, h] of health.entries()) {
      // Priority, whether it serves, and its quota: the sandbox has no quota call.
      expect(table[i]!.slice(4, 7)).toEqual(['1', 'serves', '—']);
      expect(table[i]![7]).toBe('closed · healthy');
      expect(table[i]![8]).toBe(String(h.requests));
      expect(table[i]![9]).toBe(String(h.failures));
    }
    expect(health.reduce((n, h) => n + h.requests, 0)).toBe(31); // 28 successes + 3 bank failures
    await screenshot(page, 'upstreams');

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('section.results tbody tr').first().waitFor();
    await screenshot(page, 'audit-log');
    await page.context().close();
  });
});
