// `slipgate line connect|set|notify|groups|list|disconnect` as real processes against a real
// SQLite file: refused without SECRETS_KEY, secret and token sealed and
// never printed back, bad input refused with nothing written, each change in
// the admin event trail with the operator as actor.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate line', () => {
  const dir = tempDir();
  const file = join(dir.path, 'line-cli.db');
  const key = randomBytes(32);
  const secret = randomBytes(16).toString('hex');
  const token = randomBytes(40).toString('base64url');
  afterAll(() => dir.remove());

  const slipgate = async (env: Record<string, string>, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', ...env } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const keyed = { SECRETS_KEY: key.toString('hex') };
  const rows = (sql: string) => sqliteRows(file, sql);

  it('connects, lists masked and disconnects; refuses without SECRETS_KEY and bad input, writing nothing', { timeout: 90_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate(keyed, 'accounts', 'create', '--name', 'LINE Shop', '--credits', '1', '--json')).stdout) as { accountId: string };
    const connect = (env: Record<string, string>, ...extra: string[]) =>
      slipgate(env, 'line', 'connect', accountId, '--channel-id', '1650000009', '--channel-secret', secret, '--access-token', token, ...extra);

    const keyless = await connect({});
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('SECRETS_KEY is not set');
    const badLang = await connect(keyed, '--lang', 'fr');
    expect(badLang.code).toBe(2);
    expect(badLang.stderr).toContain('language must be one of: th, en');
    expect(rows('SELECT * FROM line_channels')).toEqual([]);

    const connected = await connect(keyed, '--lang', 'en', '--no-checks', '--reason', 'go live');
    expect(connected.code).toBe(0);
    expect(connected.stdout).toContain('/line/webhook/1650000009');
    const [stored] = rows('SELECT * FROM line_channels');
    expect(stored).toMatchObject({ channel_id: '1650000009', account_id: accountId, lang: 'en', checks: 0, hints: 0 });
    expect(secretBox(key).open(String(stored!.secret))).toBe(secret);
    expect(secretBox(key).open(String(stored!.access_token))).toBe(token);

    // Quiet by default; the hint turned on for this channel, and a setting that is not on or off refused.
    const hinted = await slipgate(keyed, 'line', 'set', '1650000009', '--hints', 'on', '--reason', 'shop asked');
    expect(hinted).toMatchObject({ code: 0, stdout: 'LINE channel 1650000009: hints on.\n' });
    expect((await slipgate(keyed, 'line', 'set', '1650000009', '--hints', 'maybe')).code).not.toBe(0);
    expect((await slipgate(keyed, 'line', 'set', '1650000008', '--hints', 'off')).code).toBe(2);
    expect(rows('SELECT hints FROM line_channels')).toEqual([{ hints: 1 }]);

    // Staff targets: added, listed, refused when malformed or twice, removed; no group yet.
    const group = 'C' + 'ab'.repeat(16);
    const added = await slipgate(keyed, 'line', 'notify', '1650000009', '--to', group, '--reason', 'staff group');
    expect(added).toMatchObject({ code: 0, stdout: `${group} is told the slips of LINE channel 1650000009 that need a person.\n` });
    expect((await slipgate(keyed, 'line', 'notify', '1650000009', '--to', group)).code).toBe(2);
    const malformed = await slipgate(keyed, 'line', 'notify', '1650000009', '--to', 'staff-room');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('staff target must be a LINE user id');
    expect((await slipgate(keyed, 'line', 'notify', '1650000009', '--to', group, '--list')).code).toBe(2);
    expect(JSON.parse((await slipgate(keyed, 'line', 'notify', '1650000009', '--list', '--json')).stdout)).toEqual([{ channelId: '1650000009', targetId: group, createdAt: expect.any(String) }]);
    expect((await slipgate(keyed, 'line', 'notify', '1650000009')).stdout).toContain(group);
    expect((await slipgate(keyed, 'line', 'groups', '1650000009')).stdout).toContain('The bot is in no group');
    expect((await slipgate(keyed, 'line', 'notify', '1650000009', '--remove', group)).code).toBe(0);
    expect((await slipgate(keyed, 'line', 'notify', '1650000009', '--remove', group)).code).toBe(2);
    expect(rows('SELECT * FROM line_staff_targets')).toEqual([]);

    const listed = await slipgate(keyed, 'line', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ channelId: '1650000009', accountId, lang: 'en', checks: false, hints: true, secret: '••••••••', accessToken: '••••••••' })]);
    const table = await slipgate(keyed, 'line', 'list');
    expect(table.stdout).toContain('1650000009');
    const disconnected = await slipgate(keyed, 'line', 'disconnect', '1650000009', '--reason', 'closed');
    expect(disconnected.code).toBe(0);
    expect((await slipgate(keyed, 'line', 'disconnect', '1650000009')).code).toBe(2);
    expect(rows('SELECT * FROM line_channels')).toEqual([]);

    const everything = [connected, listed, table, disconnected].map((r) => r.stdout + r.stderr).join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(token);
    const events = rows("SELECT action, actor, reason FROM admin_events WHERE target_id = '1650000009' ORDER BY created_at");
    expect(events).toEqual([
      { action: 'connectLineChannel', actor: expect.stringMatching(/^cli:/), reason: 'go live' },
      { action: 'setLineChannelHints', actor: expect.stringMatching(/^cli:/), reason: 'shop asked' },
      { action: 'addLineStaffTarget', actor: expect.stringMatching(/^cli:/), reason: 'staff group' },
      { action: 'removeLineStaffTarget', actor: expect.stringMatching(/^cli:/), reason: null },
      { action: 'disconnectLineChannel', actor: expect.stringMatching(/^cli:/), reason: 'closed' },
    ]);
  });
});
