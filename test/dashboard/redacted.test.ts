// The audit log says which verifications lost their personal data (an
// erasure here; retention writes the same marker), in English and in Thai,
// in real Chromium after real verifications and a real erasePersonalData.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { startDashboardTest, type DashboardTest } from './helpers.js';

describe('dashboard: redacted verifications', { timeout: 90_000 }, () => {
  let t: DashboardTest;
  let erasedTx: string;
  let keptTx: string;

  beforeAll(async () => {
    t = await startDashboardTest();
    const erased = await t.app.account(3);
    const kept = await t.app.account(3);
    const verify = async (apiKey: string) => (await t.app.verify(apiKey, sandboxQr({ amount: 75 }))).body.data.transactionId as string;
    erasedTx = await verify(erased.apiKey);
    keptTx = await verify(kept.apiKey);
    dataOf(await t.app.gql('admin', `mutation { erasePersonalData(accountId: "${erased.accountId}") { redactedVerifications } }`));
  });
  afterAll(async () => {
    await t?.stop();
  });

  const rowOf = (page: Page, transactionId: string) => page.locator('section.results tbody tr', { hasText: transactionId });

  it('labels the redacted record, and only it, in both languages', async () => {
    const page = await t.signedIn(t.app.tokens.viewer);
    await page.goto(`${t.app.adminUrl}/#/audit`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await rowOf(page, keptTx).waitFor();
    const badge = rowOf(page, erasedTx).getByTestId('redacted');
    expect(await badge.innerText()).toBe('redacted');
    expect(await badge.getAttribute('title')).toMatch(/^Personal data \(names, accounts, the bank's raw answer\) removed on .+; amount, banks and reference kept\.$/);
    expect(await rowOf(page, keptTx).getByTestId('redacted').count()).toBe(0);

    await page.getByRole('group', { name: /Language/ }).getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { level: 1, name: 'บันทึกตรวจสอบ' }).waitFor();
    await rowOf(page, keptTx).waitFor();
    expect(await rowOf(page, erasedTx).getByTestId('redacted').innerText()).toBe('ลบข้อมูลส่วนบุคคลแล้ว');
    expect(await rowOf(page, keptTx).getByTestId('redacted').count()).toBe(0);
    await page.context().close();
  });
});
