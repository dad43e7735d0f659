// The dashboard in Thai, in real Chromium against a real slipgate: a browser
// that prefers Thai gets Thai everywhere (Buddhist-era dates with Thai month
// names, Thai bank names, baht and counts formatted), the header switch
// changes the language and the choice is remembered. The English flows are
// the other files in this folder.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { dataOf } from '../graphql/helpers.js';
import { bangkokClock, BROWSER_TIMEZONE, screenshot, startDashboardTest, VIEWPORT, type DashboardTest } from './helpers.js';

const THAI_MONTHS = ['ม.ค.', 'ก.พ.', 'มี.ค.', 'เม.ย.', 'พ.ค.', 'มิ.ย.', 'ก.ค.', 'ส.ค.', 'ก.ย.', 'ต.ค.', 'พ.ย.', 'ธ.ค.'];

/** The Bangkok calendar date of an instant: [year, month 1-12, day]. */
function bangkokDate(iso: string): [number, number, number] {
  const d = new Date(Date.parse(iso) + 7 * 3_600_000);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

describe('dashboard in Thai', { timeout: 120_000 }, () => {
  let t: DashboardTest;
  let somchai: string;
  const contexts: BrowserContext[] = [];
  let createdAt: string;

  beforeAll(async () => {
    t = await startDashboardTest();
    const { accounts } = t.app;
    const shop = await accounts.createAccount({ name: 'ร้านสมชาย', credits: 50, actor: 'test' });
    somchai = shop.account.id;
    await accounts.createAccount({ name: 'Bangkok Coffee Co.', credits: 1200, actor: 'test' });
    for (const amount of [250, 1234.5, 99.99]) {
      expect((await t.app.verify(shop.apiKey.secret, sandboxQr({ amount, bank: '014' }))).body.status).toBe('success');
    }
    expect((await t.app.verify(shop.apiKey.secret, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    expect((await t.app.verify(shop.apiKey.secret, 'not a slip')).body.status).toBe('error');
    createdAt = dataOf(await t.app.gql('viewer', `{ account(id: "${somchai}") { createdAt } }`)).account.createdAt;
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await t?.stop();
  });

  /** A tab whose browser prefers `languages` (first is the UI locale). */
  const open = async (locale: string): Promise<Page> => {
    const context = await t.browser.newContext({ viewport: VIEWPORT, timezoneId: BROWSER_TIMEZONE, locale, deviceScaleFactor: 1 });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.app.adminUrl}/`);
    return page;
  };

  const signInThai = async (page: Page, token: string) => {
    await page.getByLabel('โทเค็นผู้ดูแลระบบ').fill(token);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'บัญชี' }).waitFor();
  };

  it('speaks Thai to a browser that prefers it: sign-in, accounts and an account with Buddhist-era dates', async () => {
    const page = await open('th-TH');
    await page.getByRole('heading', { level: 1, name: 'เข้าสู่ระบบ' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('th');
    expect(await page.title()).toBe('เข้าสู่ระบบ · แดชบอร์ด slipgate');
    expect(await page.locator('.lang-switch [aria-pressed="true"]').innerText()).toBe('ไทย');
    await page.getByLabel('โทเค็นผู้ดูแลระบบ').fill('sgadm_thisTokenDoesNotExist');
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    const alert = page.locator('#sign-in-message .notice.error');
    await alert.waitFor();
    expect(await alert.innerText()).toBe('โทเค็นนี้ไม่ได้รับการยอมรับ: ไม่รู้จัก ถูกเพิกถอน หรือพิมพ์ผิด โปรดตรวจสอบแล้วลองอีกครั้ง');
    await screenshot(page, 'th-sign-in');

    await signInThai(page, t.app.tokens.viewer);
    expect(await page.locator('.who').innerText()).toContain('ผู้ดู');
    await page.locator('tbody tr').nth(1).waitFor();
    const coffee = await page.locator('tbody tr', { hasText: 'Bangkok Coffee Co.' }).locator('td').allInnerTexts();
    expect(coffee[2]).toBe('1,200');
    const shopRow = await page.locator('tbody tr', { hasText: 'ร้านสมชาย' }).locator('td').allInnerTexts();
    expect(shopRow[2]).toBe('47');
    expect(shopRow[5]).toContain('ใช้งานอยู่ 1');
    // Created: day, Thai month, พ.ศ. year (Gregorian + 543), Bangkok time.
    const [year, month, day] = bangkokDate(createdAt);
    const created = shopRow[6]!;
    expect(created).toContain(`${day} ${THAI_MONTHS[month - 1]} พ.ศ. ${year + 543}`);
    expect(created).toContain(bangkokClock(createdAt));
    expect(created).not.toContain(String(year));
    await screenshot(page, 'th-accounts');

    await page.getByLabel('ค้นหาด้วยชื่อหรือรหัสบัญชี').fill('สมชาย');
    await page.getByRole('button', { name: 'ค้นหา', exact: true }).click();
    await page.getByRole('heading', { name: 'บัญชีที่ตรงกับ “สมชาย”' }).waitFor();
    await page.getByRole('link', { name: 'ร้านสมชาย', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'ร้านสมชาย' }).waitFor();
    expect(await page.getByTestId('balance').innerText()).toBe('47 เครดิต');
    const activity = await page.locator('section[aria-labelledby="activity-h"]').innerText();
    for (const amount of ['฿250.00', '฿1,234.50', '฿99.99']) expect(activity).toContain(amount);
    expect(activity).toContain('014 ธนาคารไทยพาณิชย์');
    expect(activity).toContain('ไม่พบสลิป');
    expect(activity).toContain('QR ไม่ถูกต้อง');
    expect(activity).toContain('ตรวจสอบแล้ว');
    const chart = page.getByRole('img', { name: /^การใช้งานรายวัน/ });
    expect(await chart.getAttribute('aria-label')).toContain('สำเร็จ 3 ครั้ง ไม่สำเร็จ 2 ครั้ง ใช้ไป 3 เครดิต');
    expect(await page.locator('section[aria-labelledby="ledger-h"]').innerText()).toContain('ตั้งต้น');
    await screenshot(page, 'th-account-detail');
  });

  it('shows the audit log, upstreams and a top-up in Thai', async () => {
    const page = await open('th-TH');
    await signInThai(page, t.app.tokens.support);
    await page.getByRole('link', { name: 'บันทึกตรวจสอบ' }).click();
    await page.getByRole('heading', { level: 1, name: 'บันทึกตรวจสอบ' }).waitFor();
    await page.locator('section.results tbody tr').nth(2).waitFor();
    const first = await page.locator('section.results tbody tr').first().locator('td').allInnerTexts();
    expect(first[0]).toMatch(/พ\.ศ\. 25\d\d/);
    expect(first[4]).toBe('014 ธนาคารไทยพาณิชย์');
    expect(await page.getByLabel('ธนาคารผู้โอน').locator('option[value="004"]').textContent()).toBe('004 ธนาคารกสิกรไทย');
    await screenshot(page, 'th-audit-log');
    await page.getByLabel('คำขอที่ล้มเหลว (ไม่คิดเครดิต)').check();
    await page.getByLabel('ประเภทข้อผิดพลาด').selectOption('SLIP_NOT_FOUND');
    await page.getByRole('button', { name: 'ค้นหา', exact: true }).click();
    await page.getByRole('heading', { name: 'คำขอที่ล้มเหลว เรียงจากใหม่ไปเก่า' }).waitFor();
    await page.locator('section.results .loading').waitFor({ state: 'detached' });
    const failures = page.locator('section.results tbody tr');
    expect(await failures.count()).toBe(1);
    expect(await failures.first().innerText()).toContain('ไม่พบสลิป');

    await page.getByRole('link', { name: 'เครือข่ายธนาคาร' }).click();
    await page.getByRole('heading', { level: 1, name: 'เครือข่ายธนาคาร' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody tr').first().innerText()).toContain('ปิด · ปกติ');
    expect(await page.locator('thead').innerText()).toContain('โควตาคงเหลือ');
    expect(await page.locator('tbody tr').first().locator('td').nth(5).innerText()).toBe('ให้บริการ');
    expect(await page.getByRole('status').first().innerText()).toMatch(/^อัปเดตเมื่อ \d\d:\d\d:\d\d \(เวลากรุงเทพฯ\)/);

    await page.goto(`${t.app.adminUrl}/#/top-up?account=${somchai}`);
    await page.getByRole('heading', { level: 1, name: 'เติมเครดิต' }).waitFor();
    await page.getByLabel('จำนวนเครดิตที่จะเติม').fill('1500');
    await page.getByLabel('เหตุผล').fill('ใบแจ้งหนี้ INV-2569-0042');
    await page.getByRole('button', { name: 'เติมเครดิต', exact: true }).click();
    const done = page.getByTestId('top-up-done');
    await done.waitFor();
    expect(await done.innerText()).toBe('เติม 1,500 เครดิตให้ ร้านสมชาย แล้ว ยอดคงเหลือใหม่: 1,547 เครดิต');
    expect(await page.getByTestId('current-balance').innerText()).toBe('1,547 เครดิต');
    await screenshot(page, 'th-top-up');
    expect(dataOf(await t.app.gql('admin', `{ account(id: "${somchai}") { credits } }`)).account.credits).toBe(1547);
  });

  it('switches language from the header and remembers the choice', async () => {
    const page = await open('en-GB');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Admin token').fill(t.app.tokens.viewer);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    const [year] = bangkokDate(createdAt);
    const createdCell = () => page.locator('tbody tr', { hasText: 'ร้านสมชาย' }).locator('td').nth(6).innerText();
    await page.locator('tbody tr').nth(1).waitFor();
    expect(await createdCell()).toContain(`${year}, ${bangkokClock(createdAt)}`);

    await page.getByRole('group', { name: /Language/ }).getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { level: 1, name: 'บัญชี' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('th');
    expect(await page.evaluate(() => localStorage.getItem('slipgate.locale'))).toBe('th');
    await page.locator('tbody tr').nth(1).waitFor();
    expect(await createdCell()).toContain(`พ.ศ. ${year + 543}`);
    // Focus stays on the switch for keyboard users.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-locale'))).toBe('th');

    // Remembered: a reload (and the session) stays in Thai although the browser prefers English.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'บัญชี' }).waitFor();
    expect(await page.getByRole('link', { name: 'บันทึกตรวจสอบ' }).count()).toBe(1);

    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('slipgate.locale'))).toBe('en');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // Signed out, the sign-in page keeps the choice too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { level: 1, name: 'เข้าสู่ระบบ' }).waitFor();
    expect(await page.getByLabel('โทเค็นผู้ดูแลระบบ').count()).toBe(1);
  });
});
