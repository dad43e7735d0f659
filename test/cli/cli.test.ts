// The operator CLI, run as a real process against a real store.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate CLI', () => {
  const dir = tempDir();
  const file = join(dir.path, 'cli.db');
  afterAll(() => dir.remove());

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('creates an account, shows the key once and stores only its hash', { timeout: 90_000 }, async () => {
    const created = await slipgate('accounts', 'create', '--name', 'ร้านกาแฟ Shop', '--credits', '5', '--json');
    expect(created.code).toBe(0);
    const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };
    expect(accountId).toMatch(/^acc_/);
    expect(apiKey).toMatch(/^slip_[A-Za-z0-9_-]{32}$/);

    const dump = JSON.stringify(sqliteRows(file, 'SELECT * FROM api_keys'));
    expect(dump).not.toContain(apiKey);
    expect(dump).toContain(apiKey.slice(0, 13));

    const topUp = await slipgate('accounts', 'top-up', accountId, '--credits', '10', '--reason', 'paid invoice 7', '--idempotency-key', 'inv-7', '--json');
    expect(JSON.parse(topUp.stdout)).toMatchObject({ credits: 15, created: true });
    const again = await slipgate('accounts', 'top-up', accountId, '--credits', '10', '--reason', 'paid invoice 7', '--idempotency-key', 'inv-7', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ credits: 15, created: false });

    // The name the checkout page shows customers, changed in place.
    expect(JSON.parse((await slipgate('accounts', 'rename', accountId, 'ร้านกาแฟ Kaffee', '--reason', 'new sign', '--json')).stdout)).toEqual({ accountId, name: 'ร้านกาแฟ Kaffee' });
    const blank = await slipgate('accounts', 'rename', accountId, ' ');
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/^slipgate: name must be 1 to 200 characters$/m);
    const list = JSON.parse((await slipgate('accounts', 'list', '--json')).stdout) as { id: string; name: string; credits: number }[];
    expect(list).toMatchObject([{ id: accountId, name: 'ร้านกาแฟ Kaffee', credits: 15 }]);

    const keys = JSON.parse((await slipgate('keys', 'list', accountId, '--json')).stdout) as { id: string; hash?: string }[];
    expect(keys).toHaveLength(1);
    expect(keys[0]!.hash).toBeUndefined();
    expect((await slipgate('keys', 'revoke', keys[0]!.id)).code).toBe(0);
    const newKey = JSON.parse((await slipgate('keys', 'create', accountId, '--json')).stdout) as { apiKey: string };
    expect(newKey.apiKey).not.toBe(apiKey);

    const doctor = await slipgate('doctor', '--json');
    expect(doctor.code).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ accounts: 1, discrepancies: [] });

    expect((await slipgate('accounts', 'delete', accountId, '--yes')).code).toBe(0);
    expect(JSON.parse((await slipgate('accounts', 'list', '--json')).stdout)).toEqual([]);
    expect(JSON.parse((await slipgate('audit', 'list', '--json')).stdout)).toEqual([]);
  });

  it('doctor exits non-zero when a balance does not add up', async () => {
    const created = JSON.parse((await slipgate('accounts', 'create', '--name', 'Tampered', '--credits', '3', '--json')).stdout) as { accountId: string };
    // A writable handle of its own: the test tampers with a balance behind the store's back.
    const db = new Database(file);
    db.prepare('UPDATE accounts SET credits = credits + 100 WHERE id = ?').run(created.accountId);
    db.close();
    const doctor = await slipgate('doctor');
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`DISCREPANCY ${created.accountId}`);
  });

  it('prints sandbox QRs that parse as slips', async () => {
    const out = await slipgate('sandbox', 'qr', '--bank', '014', '--amount', '250.00');
    const parsed = parseSlipQr(out.stdout.trim());
    expect(parsed).toMatchObject({ ok: true, slip: { sendingBank: '014' } });
  });

  it('refuses a malformed CIDR by name (exit 2) and lists the ranges a key is locked to', async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Locked', '--json')).stdout) as { accountId: string };
    const [badCreate, locked] = await Promise.all([
      slipgate('keys', 'create', accountId, '--allow-ip', '10.0.0.0/8', '--allow-ip', 'localhost'),
      slipgate('keys', 'create', accountId, '--allow-ip', '10.0.0.0/8', '--allow-ip', '2001:DB8::/32', '--json'),
    ]);
    expect(badCreate.code).toBe(2);
    expect(badCreate.stderr).toContain('"localhost"');
    expect(badCreate.stderr).not.toContain('    at ');
    const { keyId } = JSON.parse(locked.stdout) as { keyId: string };
    const [badSet, neither, list] = await Promise.all([
      slipgate('keys', 'allow-ip', keyId, '192.168.1.1/24'),
      slipgate('keys', 'allow-ip', keyId),
      slipgate('keys', 'list', accountId, '--json'),
    ]);
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain('192.168.1.1/24');
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('--any');
    const keys = JSON.parse(list.stdout) as { id: string; allowedIps: string[] }[];
    expect(keys.map((k) => k.allowedIps).sort()).toEqual([[], ['10.0.0.0/8', '2001:db8::/32']]);
    expect(keys.find((k) => k.id === keyId)?.allowedIps).toEqual(['10.0.0.0/8', '2001:db8::/32']);
  }, 60_000);

  it('explains bad arguments without a stack trace', async () => {
    const bad = await slipgate('accounts', 'create', '--name', 'X', '--credits', 'many');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('expected a whole number');
    expect(bad.stderr).not.toContain('    at ');
    const missing = await slipgate('accounts', 'top-up', 'acc_nope', '--credits', '1', '--reason', 'x');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('account not found');
  });
});
