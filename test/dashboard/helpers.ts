// Drives the dashboard in Debian's real headless Chromium (playwright-core,
// no browser download) against a real running slipgate whose admin listener
// serves a fresh build of dashboard/ (built into a temp dir per test file).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { startGraphqlApp, type GraphqlTestApp, type GraphqlTestAppOptions } from '../graphql/helpers.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Ignored by git: a test run never rewrites tracked files. `npm run
 * screenshots` copies the pictures of a run into docs/screenshots.
 */
const SCREENSHOT_DIR = join(ROOT, 'test-output', 'screenshots');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Screenshots are always this size, so the docs' images line up. */
export const VIEWPORT = { width: 1280, height: 800 };
/** Not Bangkok on purpose: the page must show Bangkok times whatever the computer says. */
export const BROWSER_TIMEZONE = 'America/New_York';

export interface DashboardTest {
  app: GraphqlTestApp;
  browser: Browser;
  /** A new tab (own session storage) at the dashboard, not signed in. */
  open(): Promise<Page>;
  /** A new tab signed in with `token`, on the accounts page. */
  signedIn(token: string): Promise<Page>;
  stop(): Promise<void>;
}

export async function startDashboardTest(opts: GraphqlTestAppOptions = {}): Promise<DashboardTest> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium fonts-tlwg-loma-otf; .ci/run does it)`);
  }
  const build = tempDir('slipgate-dashboard-');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-dashboard.mjs'), '--outdir', build.path], { cwd: ROOT, stdio: 'pipe' });
  const app = await startGraphqlApp({ ...opts, env: { ...opts.env, DASHBOARD_DIR: build.path } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const open = async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: BROWSER_TIMEZONE, locale: 'en-GB', deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${app.adminUrl}/`);
    return page;
  };
  return {
    app,
    browser,
    open,
    async signedIn(token) {
      const page = await open();
      await signIn(page, token);
      await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
      return page;
    },
    async stop() {
      await browser.close();
      await app.stop();
      build.remove();
    },
  };
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Writes <SCREENSHOT_DIR>/<name>.png (1280×800, the visible viewport). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Let late layout (fonts, the chart) settle; the caret would make diffs noisy.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false, caret: 'hide', animations: 'disabled' });
}

/** HH:MM:SS of an instant in Bangkok (UTC+7, no DST), computed without Intl. */
export function bangkokClock(iso: string): string {
  return new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().slice(11, 19);
}

/** A phone-screenshot-like slip: light background, a header band, the QR in the lower part. */
export async function slipImage(qrcode: string): Promise<Buffer> {
  const qr = await QRCode.toBuffer(qrcode, { type: 'png', width: 260, margin: 2, errorCorrectionLevel: 'M' });
  const header = await sharp({ create: { width: 720, height: 180, channels: 3, background: '#1f8a3d' } }).png().toBuffer();
  const panel = await sharp({ create: { width: 640, height: 560, channels: 3, background: '#ffffff' } }).png().toBuffer();
  return sharp({ create: { width: 720, height: 1280, channels: 3, background: '#eef2f0' } })
    .composite([
      { input: header, top: 0, left: 0 },
      { input: panel, top: 220, left: 40 },
      { input: qr, top: 900, left: 430 },
    ])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Drops a file on an element the way a browser does (DataTransfer + drop event). */
export async function dropFile(page: Page, selector: string, file: { name: string; mimeType: string; bytes: Buffer }): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ name, mimeType, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: mimeType }));
      return dt;
    },
    { name: file.name, mimeType: file.mimeType, base64: file.bytes.toString('base64') },
  );
  await page.dispatchEvent(selector, 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}
