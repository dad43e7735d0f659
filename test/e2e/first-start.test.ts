// A first start that needs no secrets setting (issue 59): with no
// SECRETS_KEY and a SQLite database, `serve` makes the key once beside the
// database (32 random bytes, 0600), says where, and uses it from then on;
// with no PUBLIC_URL while the public listener is on loopback, checkout
// links point at the listener itself and open on this machine; a server
// that gives no links says why on every payment request answer. Real child
// processes of the built CLI (dist/entry.cjs) and the CLI from source.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, spawnSlipgate, type Child } from '../helpers/child.js';
import { slipgateCli } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { PATH, shop } from '../payments/helpers.js';

const stop = async (server: Child) => {
  server.proc.kill('SIGTERM');
  await server.exited;
};

describe('the first start', { timeout: 120_000 }, () => {
  const dir = tempDir('slipgate-first-start-');
  afterAll(() => dir.remove());
  const db = join(dir.path, 'data', 'slipgate.db');
  const keyFile = join(dir.path, 'data', 'secrets.key');
  const settings = { DATABASE_URL: `sqlite:${db}`, SECRETS_KEY: '', PUBLIC_URL: '', LOG_FORMAT: 'json' };
  const cli = slipgateCli({ ...settings, LOG_LEVEL: 'silent' });

  it('makes SECRETS_KEY once beside the database, says where, and links checkout pages to its own loopback address', async () => {
    const first = await spawnSlipgate(settings);
    let link: string;
    try {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const key = readFileSync(keyFile, 'utf8');
      expect(key).toMatch(/^[0-9a-f]{64}\n$/);
      // Said once it is up, after the listening line.
      await eventually(async () => first.logs.some((l) => String(l.msg).includes(`SECRETS_KEY: the key made on the first start, in ${keyFile} (mode 0600)`)));
      expect(first.logs.some((l) => /SECRETS_KEY is not set/.test(String(l.msg)))).toBe(false);
      expect(first.logs.some((l) => String(l.msg).startsWith(`checkout pages: payment requests' checkoutUrl opens under ${first.publicUrl}/checkout/ (PUBLIC_URL is not set`))).toBe(true);

      const { accountId, apiKey } = JSON.parse((await cli('accounts', 'create', '--name', 'Shop', '--credits', '5', '--json')).stdout) as { accountId: string; apiKey: string };
      expect((await cli('receivers', 'add', accountId, '--promptpay', '0812345678', '--name', 'SOMCHAI JAIDEE')).code).toBe(0);
      const made = await fetch(`${first.publicUrl}${PATH}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 120, reference: 'order-1' }) });
      expect(made.status).toBe(201);
      expect(made.headers.get('x-checkout-url-missing')).toBeNull();
      link = ((await made.json()) as { data: { checkoutUrl: string } }).data.checkoutUrl;
      expect(link.startsWith(`${first.publicUrl}/checkout/`)).toBe(true);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    } finally {
      await stop(first);
    }
    // The second start reads the same key: the link handed out before still opens.
    const again = await spawnSlipgate({ ...settings, PORT: new URL(first.publicUrl).port });
    try {
      expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
      expect((await fetch(link)).status).toBe(200);
    } finally {
      await stop(again);
    }
  });

  it('backup says the key is kept apart, and doctor --go-live asks for a credential', async () => {
    const backup = await cli('backup', '--to', join(dir.path, 'backup.db'));
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(`Keep ${keyFile} with the backups: it is this database's SECRETS_KEY`);
    const doctor = await cli('doctor', '--go-live', '--json');
    const checks = (JSON.parse(doctor.stdout) as { checks: { check: string; state: string; detail: string; fix?: string }[] }).checks;
    expect(checks.find((c) => c.check === 'SECRETS_KEY')).toMatchObject({ state: 'blocks', detail: expect.stringContaining(keyFile), fix: expect.stringContaining('/etc/slipgate/credentials/SECRETS_KEY') });
  });

  it('a server that gives no checkout links says why on its payment request answers', async () => {
    const app = await startApp({ env: { SECRETS_KEY: '' } });
    try {
      const s = await shop(app);
      const made = await fetch(`${app.publicUrl}${PATH}`, { method: 'POST', headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 120, reference: 'order-2' }) });
      expect(made.status).toBe(201);
      expect(((await made.json()) as { data: { checkoutUrl: unknown } }).data.checkoutUrl).toBeNull();
      expect(made.headers.get('x-checkout-url-missing')).toBe('SECRETS_KEY is not set (checkout links are signed with it)');
    } finally {
      await app.stop();
    }
  });
});
