// Secret settings from files: NAME_FILE, or systemd's credential NAME in
// $CREDENTIALS_DIRECTORY (LoadCredential=), one mechanism for each of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SECRET_SETTINGS } from '../src/config.js';
import { tempDir } from './helpers/temp.js';

const KEY_HEX = 'ab'.repeat(32);
const TOKEN = 'metrics-token-0123456789';
const DB = 'postgres://slipgate:S3cretPw@127.0.0.1:5432/slipgate';
const VALUES: Record<(typeof SECRET_SETTINGS)[number], string> = { SECRETS_KEY: KEY_HEX, METRICS_TOKEN: TOKEN, DATABASE_URL: DB };

describe('secret settings from files', () => {
  const dirs: { remove(): void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.remove()));
  const scratch = () => {
    const dir = tempDir('slipgate-secret-files-');
    dirs.push(dir);
    return dir.path;
  };
  const expectLoaded = (env: NodeJS.ProcessEnv) => {
    const config = loadConfig(env);
    expect(config.SECRETS_KEY).toEqual(Buffer.from(KEY_HEX, 'hex'));
    expect(config.METRICS_TOKEN).toBe(TOKEN);
    expect(config.DATABASE_URL).toBe(DB);
    // Adapters that read the raw environment see the value too.
    expect(config.env.SECRETS_KEY).toBe(KEY_HEX);
  };

  it('reads NAME_FILE for every secret setting, dropping the trailing line break', () => {
    const dir = scratch();
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(VALUES)) {
      writeFileSync(join(dir, name), `${value}\n`, { mode: 0o600 });
      env[`${name}_FILE`] = join(dir, name);
    }
    expectLoaded(env);
  });

  it("reads systemd's credentials named like the settings from $CREDENTIALS_DIRECTORY", () => {
    const dir = scratch();
    for (const [name, value] of Object.entries(VALUES)) writeFileSync(join(dir, name), `${value}\n`, { mode: 0o400 });
    expectLoaded({ CREDENTIALS_DIRECTORY: dir });
    // A credential not loaded is simply unset.
    expect(loadConfig({ CREDENTIALS_DIRECTORY: scratch() }).SECRETS_KEY).toBeUndefined();
  });

  it('the environment and NAME_FILE win over a credential; both NAME and NAME_FILE is an error', () => {
    const dir = scratch();
    mkdirSync(join(dir, 'creds'));
    writeFileSync(join(dir, 'creds', 'METRICS_TOKEN'), 'from-the-credential-0000');
    writeFileSync(join(dir, 'token'), 'from-the-file-000000000');
    expect(loadConfig({ CREDENTIALS_DIRECTORY: join(dir, 'creds'), METRICS_TOKEN: TOKEN }).METRICS_TOKEN).toBe(TOKEN);
    expect(loadConfig({ CREDENTIALS_DIRECTORY: join(dir, 'creds'), METRICS_TOKEN_FILE: join(dir, 'token') }).METRICS_TOKEN).toBe('from-the-file-000000000');
    expect(() => loadConfig({ METRICS_TOKEN: TOKEN, METRICS_TOKEN_FILE: join(dir, 'token') })).toThrow(/METRICS_TOKEN: set METRICS_TOKEN or METRICS_TOKEN_FILE, not both/);
  });

  it('names a file it cannot read, and a bad value from a file, without echoing the secret', () => {
    const dir = scratch();
    const missing = () => loadConfig({ SECRETS_KEY_FILE: join(dir, 'nope') });
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow(/SECRETS_KEY_FILE: cannot read ".*nope" \(ENOENT\)/);
    writeFileSync(join(dir, 'short'), 'not-a-key-at-all\n');
    const bad = () => loadConfig({ SECRETS_KEY_FILE: join(dir, 'short') });
    expect(bad).toThrow(/SECRETS_KEY: must be 32 bytes.*\(got 16 characters\)/s);
    expect(bad).not.toThrow(/not-a-key-at-all/);
    writeFileSync(join(dir, 'db'), 'mysql://admin:S3cretPw@db/x');
    expect(() => loadConfig({ DATABASE_URL_FILE: join(dir, 'db') })).not.toThrow(/S3cretPw/);
  });
});

describe('PUBLIC_URL', () => {
  it('is optional, an http(s) address without query, kept without a trailing slash', () => {
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://pay.example.co.th/' }).PUBLIC_URL).toBe('https://pay.example.co.th');
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://pay.example.co.th' })).toThrow(/PUBLIC_URL: must be an http\(s\) URL/);
    expect(() => loadConfig({ PUBLIC_URL: 'https://pay.example.co.th/?a=1' })).toThrow(/PUBLIC_URL: must be a plain address/);
  });
});
