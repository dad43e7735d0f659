// Who an operator command says made a change, and the CLI on accounts that
// a shared host or a container gives it: `--as`, SLIPGATE_ACTOR and the sudo
// user name the staff member in the ledger; a uid without a passwd entry
// still runs; admin tokens made or revoked are logged like other changes.
import { execFile } from 'node:child_process';
import { chownSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../helpers/temp.js';
import { runsAsRoot } from '../deploy/unprivileged.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
/** A uid no passwd entry names (checked below with getent). */
const NAMELESS_UID = 61_234;

describe('the staff identity of CLI changes', { timeout: 120_000 }, () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'ops.db')}`;
  afterAll(() => dir.remove());

  const slipgate = async (args: string[], env: Record<string, string | undefined> = {}, prefix: string[] = []) => {
    const base: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
    for (const name of ['SLIPGATE_ACTOR', 'SUDO_USER']) delete base[name];
    const argv = [...prefix, process.execPath, ...SLIPGATE_CLI, ...args];
    try {
      const { stdout, stderr } = await exec(argv[0]!, argv.slice(1), { env: { ...base, ...env } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const ledgerActors = async (accountId: string) => {
    const store = await openStore(databaseUrl);
    try {
      return (await store.listLedger(accountId, 50))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        .map((e) => e.actor);
    } finally {
      await store.close();
    }
  };

  it('--as, then SLIPGATE_ACTOR, then SUDO_USER name who topped up; a bad name changes nothing', async () => {
    const created = await slipgate(['accounts', 'create', '--name', 'Shop', '--credits', '1', '--json'], { SUDO_USER: 'somchai' });
    expect(created.code).toBe(0);
    const { accountId } = JSON.parse(created.stdout) as { accountId: string };
    const topUp = (env: Record<string, string>, ...extra: string[]) =>
      slipgate([...extra, 'accounts', 'top-up', accountId, '--credits', '1', '--reason', 'cash'], env);
    expect((await topUp({ SUDO_USER: 'somchai', SLIPGATE_ACTOR: 'malee' })).code).toBe(0);
    expect((await topUp({ SUDO_USER: 'somchai', SLIPGATE_ACTOR: 'malee' }, '--as', 'niran')).code).toBe(0);
    expect((await topUp({ SUDO_USER: 'somchai' })).code).toBe(0);

    for (const bad of ['', ' ', 'x'.repeat(101), 'evil\nforged line']) {
      const refused = await topUp({}, '--as', bad);
      expect(refused.code, JSON.stringify(bad)).toBe(2);
      expect(refused.stderr).toContain('--as: a staff name must be 1 to 100 printable characters');
    }
    expect(await ledgerActors(accountId)).toEqual(['cli:somchai', 'cli:malee', 'cli:niran', 'cli:somchai']);
  });

  it.runIf(runsAsRoot)('runs as a uid that has no passwd entry and names it by its uid', async () => {
    const passwd = await exec('getent', ['passwd', String(NAMELESS_UID)]).then(
      () => 'found',
      () => 'none',
    );
    expect(passwd).toBe('none');
    const own = tempDir();
    try {
      chmodSync(own.path, 0o700);
      chownSync(own.path, NAMELESS_UID, NAMELESS_UID);
      const url = `sqlite:${join(own.path, 'container.db')}`;
      const setpriv = ['setpriv', `--reuid=${NAMELESS_UID}`, `--regid=${NAMELESS_UID}`, '--clear-groups', '--'];
      const created = await slipgate(['accounts', 'create', '--name', 'Shop', '--credits', '2', '--json'], { DATABASE_URL: url, HOME: own.path }, setpriv);
      expect(created.stderr).not.toMatch(/uv_os_get_passwd|ENOENT/);
      expect(created.code).toBe(0);
      const { accountId } = JSON.parse(created.stdout) as { accountId: string };
      const store = await openStore(url);
      try {
        expect((await store.listLedger(accountId, 5)).map((e) => e.actor)).toEqual([`cli:uid:${NAMELESS_UID}`]);
      } finally {
        await store.close();
      }
    } finally {
      own.remove();
    }
  });

  it('admin tokens made and revoked from the CLI are INFO lines naming who did it', async () => {
    const logged = async (args: string[]) => {
      const r = await slipgate(args, { LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, []);
      expect(r.code, r.stderr).toBe(0);
      return {
        stdout: r.stdout,
        lines: r.stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      };
    };
    const created = await logged(['--as', 'malee', 'admin-tokens', 'create', '--name', 'dashboard', '--role', 'viewer', '--json']);
    const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
    expect(created.lines).toContainEqual(
      expect.objectContaining({ level: 30, msg: 'admin token created', action: 'createAdminToken', actor: 'cli:malee', targetId: id, name: 'dashboard', role: 'viewer' }),
    );
    const revoked = await logged(['--as', 'niran', 'admin-tokens', 'revoke', id]);
    expect(revoked.lines).toContainEqual(expect.objectContaining({ level: 30, msg: 'admin token revoked', action: 'revokeAdminToken', actor: 'cli:niran', targetId: id }));
    expect(JSON.stringify([...created.lines, ...revoked.lines])).not.toContain(token.slice(6));
  });
});
