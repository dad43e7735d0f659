// The operator CLI as a person reads it: aligned tables without an index
// column, Bangkok times, counted nouns, one exit-status convention, a
// question before a delete, and word of when a key change takes effect.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteRow } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const run = promisify(execFile);

describe('slipgate CLI output', () => {
  const dir = tempDir();
  const file = join(dir.path, 'cli.db');
  let accountId = '';
  afterAll(() => dir.remove());

  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...SLIPGATE_CLI, ...args], {
        env: { ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', API_KEY_CACHE_TTL_MS: '7000' },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  beforeAll(async () => {
    accountId = (JSON.parse((await slipgate('accounts', 'create', '--name', 'ร้านกาแฟ ดีดี', '--credits', '1', '--json')).stdout) as { accountId: string }).accountId;
  }, 60_000);

  it('lists accounts as aligned columns with Bangkok times, no index column and no quotes', async () => {
    const out = (await slipgate('accounts', 'list')).stdout.split('\n');
    expect(out[0]).toMatch(/^id\s+name\s+credits\s+held\s+usage\s+created \(Bangkok\)$/);
    expect(out[1]).toMatch(/^-+( +-+)+$/);
    expect(out.join('\n')).not.toContain('(index)');
    expect(out[2]).not.toContain("'");
    // Thai vowel and tone marks take no column: the next column starts where the header's does.
    expect(out[2]!.replace(/\p{M}/gu, '').indexOf(' 1 ')).toBe(out[0]!.indexOf('credits') - 1);
    const created = new Date(
      (JSON.parse((await slipgate('accounts', 'list', '--json')).stdout) as { createdAt: string }[])[0]!.createdAt,
    );
    const bangkok = new Date(created.getTime() + 7 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
    expect(out[2]).toContain(bangkok);
  });

  it('counts in words that agree with the number', async () => {
    const doctor = await slipgate('doctor');
    expect(doctor.stdout).toContain('Checked 1 account;');
    expect(doctor.stdout).toContain('0 credit holds open');
    const created = await slipgate('accounts', 'create', '--name', 'One', '--credits', '1');
    expect(created.stdout).toContain('created with 1 credit.');
  });

  it('says when a key change reaches running servers', async () => {
    const { keyId } = JSON.parse((await slipgate('keys', 'create', accountId, '--json')).stdout) as { keyId: string };
    const allow = await slipgate('keys', 'allow-ip', keyId, '203.0.113.0/24');
    expect(allow.stdout).toContain('within 7 s (API_KEY_CACHE_TTL_MS)');
    const revoke = await slipgate('keys', 'revoke', keyId);
    expect(revoke.stdout).toContain('within 7 s (API_KEY_CACHE_TTL_MS)');
  });

  it('shows no "(default: [])" for --allow-ip and lists the main settings under serve --help', async () => {
    const keysHelp = await slipgate('keys', 'create', '--help');
    expect(keysHelp.stdout).not.toContain('default: [');
    const serveHelp = (await slipgate('serve', '--help')).stdout;
    for (const setting of ['PORT', 'ADMIN_PORT', 'DATABASE_URL', 'UPSTREAMS_FILE']) expect(serveHelp).toContain(setting);
  });

  it('exits 2 for usage errors, the argument parser\'s too, and 0 for help', async () => {
    expect((await slipgate('accounts', 'create')).code).toBe(2); // --name missing
    expect((await slipgate('accounts', 'list', '--no-such-flag')).code).toBe(2);
    expect((await slipgate('accounts', 'list', '--limit', 'many')).code).toBe(2);
    expect((await slipgate('no-such-command')).code).toBe(2);
    expect((await slipgate('accounts', 'list', '--help')).code).toBe(0);
  });

  it('asks before deleting, refuses without a terminal unless --yes, and says so when it was already deleted', async () => {
    const refused = await slipgate('accounts', 'delete', accountId);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const live = () => sqliteRow<{ deleted_at: unknown }>(file, 'SELECT deleted_at FROM accounts WHERE id = ?', accountId)?.deleted_at;
    expect(live()).toBeNull();
    const deleted = await slipgate('accounts', 'delete', accountId, '--yes');
    expect(deleted.code).toBe(0);
    expect(live()).not.toBeNull();
    const again = await slipgate('accounts', 'delete', accountId, '--yes');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already deleted');
    const unknown = await slipgate('accounts', 'delete', 'acc_nope', '--yes');
    expect(unknown.code).toBe(2);
  });

  it('gives every top-up an idempotency key, printing one it chose so a retry adds nothing', async () => {
    const { accountId: id } = JSON.parse((await slipgate('accounts', 'create', '--name', 'Keyed', '--json')).stdout) as { accountId: string };
    const first = await slipgate('accounts', 'top-up', id, '--credits', '5', '--reason', 'invoice 9');
    const key = /--idempotency-key (cli-[0-9a-f-]+)/.exec(first.stdout)?.[1];
    expect(key).toBeDefined();
    const retry = await slipgate('accounts', 'top-up', id, '--credits', '5', '--reason', 'invoice 9', '--idempotency-key', key!, '--json');
    expect(JSON.parse(retry.stdout)).toMatchObject({ credits: 5, created: false, idempotencyKey: key });
  });
}, 120_000);
