// How the admin listener serves the dashboard files: same origin as /graphql,
// strict CSP, and a clear page (not a blank one) when the build is missing.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';

describe('dashboard files on the admin listener', () => {
  const build = tempDir('slipgate-dashboard-');
  let app: TestApp;
  let unbuilt: TestApp;

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build-dashboard.mjs', '--outdir', build.path], { stdio: 'pipe' });
    app = await startApp({ env: { DASHBOARD_DIR: build.path } });
    unbuilt = await startApp({ env: { DASHBOARD_DIR: join(build.path, 'missing') } });
  });

  afterAll(async () => {
    await app?.stop();
    await unbuilt?.stop();
    build.remove();
  });

  it('serves the page and its bundle with a same-origin-only policy', async () => {
    const page = await fetch(`${app.adminUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('src="./assets/app.js"');
    expect(html).not.toMatch(/https?:\/\//);

    const js = await fetch(`${app.adminUrl}/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    const bundle = await js.text();
    // jsQR is bundled in, and nothing is fetched from elsewhere.
    expect(bundle).toContain('binaryData'); // a field of jsQR's decode result
    expect(bundle.match(/https?:\/\/[^"'\s)]+/g)?.filter((u) => !u.startsWith('http://www.w3.org/')) ?? []).toEqual([]);
    expect((await fetch(`${app.adminUrl}/assets/app.css`)).status).toBe(200);
  });

  it('leaves the other admin routes as they were', async () => {
    expect((await fetch(`${app.adminUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${app.adminUrl}/graphql`, { method: 'POST' })).status).toBe(401);
    const missing = await fetch(`${app.adminUrl}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ status: 'error', message: 'not found' });
    // Never on the public port.
    expect((await fetch(`${app.publicUrl}/`)).status).toBe(404);
  });

  it('explains how to build the dashboard when it is missing', async () => {
    const res = await fetch(`${unbuilt.adminUrl}/`);
    expect(res.status).toBe(503);
    const html = await res.text();
    expect(html).toContain('The slipgate dashboard is not built');
    expect(html).toContain('npm run build');
    expect((await fetch(`${unbuilt.adminUrl}/healthz`)).status).toBe(200);
  });
});
