// `line connect` and `webhooks add` take their secrets from a file or stdin
// (-), so they stay out of shell history and `ps`; and the settings take
// SECRETS_KEY from a file too (SECRETS_KEY_FILE, or systemd's credential
// in $CREDENTIALS_DIRECTORY). Real processes against a real SQLite file.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

describe('secrets from files and stdin in the CLI', { timeout: 120_000 }, () => {
  const dir = tempDir('slipgate-secret-cli-');
  const file = join(dir.path, 'secrets.db');
  afterAll(() => dir.remove());
  const key = randomBytes(32);
  const keyFile = join(dir.path, 'SECRETS_KEY');
  writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600 });
  const keyed = { SECRETS_KEY_FILE: keyFile };

  const slipgate = (env: Record<string, string>, args: string[], stdin = '') =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${file}`, WEBHOOK_ALLOW_PRIVATE: 'true', ...env } }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
      );
      child.stdin!.end(stdin);
    });
  const rows = (sql: string) => sqliteRows(file, sql);

  it('line connect reads the channel secret from a file and the access token from stdin, with SECRETS_KEY from a credential', async () => {
    const { accountId } = JSON.parse((await slipgate(keyed, ['accounts', 'create', '--name', 'LINE Shop', '--credits', '1', '--json'])).stdout) as { accountId: string };
    const secret = randomBytes(16).toString('hex');
    const token = randomBytes(40).toString('base64url');
    const secretFile = join(dir.path, 'channel-secret');
    writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
    const connect = (env: Record<string, string>, extra: string[], stdin = '') =>
      slipgate(env, ['line', 'connect', accountId, '--channel-id', '1650000009', ...extra], stdin);

    // Refusals first: nothing written.
    const both = await connect(keyed, ['--channel-secret', secret, '--channel-secret-file', secretFile, '--access-token-file', '-'], token);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --channel-secret or --channel-secret-file, not both');
    const twice = await connect(keyed, ['--channel-secret-file', '-', '--access-token-file', '-'], token);
    expect(twice.stderr).toContain('only one secret can come from stdin (-)');
    const none = await connect(keyed, ['--channel-secret-file', secretFile]);
    expect(none.stderr).toContain('--access-token or --access-token-file is required');
    const missing = await connect(keyed, ['--channel-secret-file', join(dir.path, 'nope'), '--access-token-file', '-'], token);
    expect(missing.stderr).toMatch(/--channel-secret-file: cannot read ".*nope" \(ENOENT\)/);
    expect(rows('SELECT * FROM line_channels')).toEqual([]);

    // systemd's way: the key as a credential named like the setting.
    const credentials = tempDir('slipgate-credentials-');
    try {
      writeFileSync(join(credentials.path, 'SECRETS_KEY'), key.toString('hex'), { mode: 0o400 });
      const connected = await connect({ CREDENTIALS_DIRECTORY: credentials.path, PUBLIC_URL: 'https://pay.example.co.th' }, ['--channel-secret-file', secretFile, '--access-token-file', '-'], `${token}\n`);
      expect(connected.code, connected.stderr).toBe(0);
      // The webhook URL to paste into LINE's console, whole, from PUBLIC_URL.
      expect(connected.stdout).toContain('to: https://pay.example.co.th/line/webhook/1650000009');
      expect(connected.stdout + connected.stderr).not.toContain(secret);
      expect(connected.stdout + connected.stderr).not.toContain(token);
    } finally {
      credentials.remove();
    }
    const [stored] = rows('SELECT * FROM line_channels');
    expect(secretBox(key).open(String(stored!.secret))).toBe(secret);
    expect(secretBox(key).open(String(stored!.access_token))).toBe(token);
  });

  it('says where the database setting came from when it came from a file', async () => {
    const urlFile = join(dir.path, 'DATABASE_URL');
    writeFileSync(urlFile, `sqlite:${file}\n`, { mode: 0o600 });
    const listed = await slipgate({ DATABASE_URL: '', DATABASE_URL_FILE: urlFile }, ['accounts', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`using database sqlite:${file} (from DATABASE_URL_FILE or its credential)`);
  });

  it("webhooks add signs with the operator's own secret from stdin or a file, never printing it; a secret too short is refused", async () => {
    const { accountId } = JSON.parse((await slipgate(keyed, ['accounts', 'create', '--name', 'Hook Shop', '--credits', '1', '--json'])).stdout) as { accountId: string };
    const own = `whsec_${randomBytes(32).toString('base64url')}`;
    const add = (extra: string[], stdin = '') => slipgate(keyed, ['webhooks', 'add', accountId, '--url', 'https://203.0.113.10/slipgate', ...extra], stdin);

    const short = await add(['--secret-file', '-'], 'too-short\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('a signing secret must be 32 to 512 printable ASCII characters without spaces');
    expect(rows('SELECT * FROM webhook_endpoints')).toEqual([]);

    const fromStdin = await add(['--secret-file', '-', '--json'], `${own}\n`);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const printed = JSON.parse(fromStdin.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ accountId, url: 'https://203.0.113.10/slipgate' });
    expect(printed).not.toHaveProperty('secret');
    const ownFile = join(dir.path, 'hook-secret');
    writeFileSync(ownFile, own, { mode: 0o600 });
    const fromFile = await add(['--secret-file', ownFile]);
    expect(fromFile.stdout).toContain('Signing with the secret from --secret-file (not printed).');
    expect(fromStdin.stdout + fromFile.stdout + fromFile.stderr).not.toContain(own);

    const stored = rows('SELECT * FROM webhook_endpoints ORDER BY created_at');
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      const sealed = String(row.secret);
      expect(sealed.startsWith('aesgcm1:')).toBe(true);
      expect(secretBox(key).open(sealed)).toBe(own);
    }
  });
});
