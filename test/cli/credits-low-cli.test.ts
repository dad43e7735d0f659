// `slipgate accounts credits-low` as a real process against a real SQLite
// file: the threshold set and turned off as stored, audited with the
// operator as actor; nonsense refused with nothing written.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate accounts credits-low', () => {
  const dir = tempDir();
  const file = join(dir.path, 'credits-low.db');
  afterAll(() => dir.remove());

  const slipgate = async (...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', SLIPGATE_ACTOR: 'ploy' };
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const stored = (id: string) => sqliteRows(file, `SELECT credits_low_at, credits_low_notified FROM accounts WHERE id = '${id}'`)[0];

  it('sets the threshold, refuses nonsense, turns it off; each change an admin event', { timeout: 90_000 }, async () => {
    const { accountId } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Low Shop', '--credits', '20', '--json')).stdout) as { accountId: string };

    const set = await slipgate('accounts', 'credits-low', accountId, '5', '--reason', 'warn before it runs out');
    expect(set).toMatchObject({ code: 0, stdout: `account.credits_low fires for ${accountId} when its credits fall below 5.\n` });
    expect(stored(accountId)).toEqual({ credits_low_at: 5, credits_low_notified: 0 });

    for (const bad of ['0', '-1', '2.5', 'lots']) {
      const refused = await slipgate('accounts', 'credits-low', accountId, bad);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('whole number');
    }
    expect(stored(accountId)).toEqual({ credits_low_at: 5, credits_low_notified: 0 });

    const off = await slipgate('accounts', 'credits-low', accountId, 'off');
    expect(off).toMatchObject({ code: 0, stdout: `account.credits_low is off for ${accountId}.\n` });
    expect(stored(accountId)).toEqual({ credits_low_at: null, credits_low_notified: 0 });
    const events = sqliteRows<{ actor: string; reason: string | null; details: string }>(file, `SELECT actor, reason, details FROM admin_events WHERE action = 'setCreditsLowAt' ORDER BY created_at, id`);
    expect(events.map((e) => [e.actor, e.reason, JSON.parse(e.details)])).toEqual([
      ['cli:ploy', 'warn before it runs out', { from: null, to: 5 }],
      ['cli:ploy', null, { from: 5, to: null }],
    ]);
    expect((await slipgate('accounts', 'credits-low', 'acc_nope', '5')).code).not.toBe(0);
  });
});
