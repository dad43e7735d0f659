// `slipgate admin-tokens …` as a real process, and its tokens against a real
// running slipgate on the same database.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { postGraphql } from './helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const execute = promisify(execFile);

describe('slipgate admin-tokens', () => {
  const dir = tempDir();
  const file = join(dir.path, 'tokens.db');
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ databaseUrl: `sqlite:${file}` });
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await execute(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('creates a token (shown once, stored hashed) that works on /graphql until revoked', async () => {
    const created = await slipgate('admin-tokens', 'create', '--name', 'support desk', '--role', 'support', '--json');
    expect(created.code).toBe(0);
    const { id, name, role, token } = JSON.parse(created.stdout) as { id: string; name: string; role: string; token: string };
    expect({ name, role }).toEqual({ name: 'support desk', role: 'support' });
    expect(token).toMatch(/^sgadm_[A-Za-z0-9_-]{32}$/);

    const rows = JSON.stringify(sqliteRows(file, 'SELECT * FROM admin_tokens'));
    expect(rows).not.toContain(token);
    expect(rows).toContain(token.slice(0, 14));

    const me = await postGraphql(app.adminUrl, token, '{ me { id name role } }');
    expect(me.body.data.me).toEqual({ id, name: 'support desk', role: 'SUPPORT' });

    const list = await slipgate('admin-tokens', 'list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id, name: 'support desk', role: 'support', prefix: token.slice(0, 14), revokedAt: null })]);
    expect(list.stdout).not.toContain(token);
    expect(list.stdout).not.toMatch(/hash/);

    expect((await slipgate('admin-tokens', 'revoke', id)).code).toBe(0);
    expect((await postGraphql(app.adminUrl, token, '{ me { id } }')).status).toBe(401);
    const again = await slipgate('admin-tokens', 'revoke', id);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no live admin token');

    const events = (await app.store.listAdminEvents({ targetId: id, limit: 10 })).items.map((e) => e.action);
    expect(events).toEqual(['revokeAdminToken', 'createAdminToken']);
  }, 90_000);

  it('refuses a name that is not printable text (control, escape, bidi override, line break), creating nothing', async () => {
    const before = (await app.store.listAdminTokens()).length;
    for (const name of ['ops\u001b[2J', 'two\nlines', 'admin\u202Egnp.exe', 'tab\there', 'para\u2029graph']) {
      const refused = await slipgate('admin-tokens', 'create', '--name', name, '--role', 'viewer');
      expect(refused.code, JSON.stringify(name)).toBe(2);
      expect(refused.stderr).toContain('name must be printable text');
      expect(refused.stdout).not.toContain('sgadm_');
    }
    expect(await app.store.listAdminTokens()).toHaveLength(before);
    const thai = await slipgate('admin-tokens', 'create', '--name', 'สมชาย (ฝ่ายบริการ)', '--role', 'viewer', '--json');
    expect(thai.code).toBe(0);
    expect(JSON.parse(thai.stdout).name).toBe('สมชาย (ฝ่ายบริการ)');
  }, 90_000);

  it('refuses unknown roles; in text mode prints the token once with a warning', async () => {
    const bad = await slipgate('admin-tokens', 'create', '--name', 'x', '--role', 'root');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('expected one of viewer, support, admin');
    const text = await slipgate('admin-tokens', 'create', '--name', 'dashboard', '--role', 'viewer');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/shown only now.*sgadm_[A-Za-z0-9_-]{32}/);
  }, 60_000);
});
