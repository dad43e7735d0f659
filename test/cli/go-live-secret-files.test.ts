// `doctor --go-live` blocks on a secret file another user can read: every
// file a secret is read from (NAME_FILE, systemd's credential, UPSTREAMS_FILE
// and its domains' secret *File entries), named with its mode and the chmod
// that fixes it, never its content. Real files with real modes, a real process.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

interface Check {
  check: string;
  state: string;
  detail: string;
  fix?: string;
}

describe('doctor --go-live: secret files', { timeout: 120_000 }, () => {
  const dir = tempDir('slipgate-go-live-secrets-');
  afterAll(() => dir.remove());
  const write = (name: string, content: string, mode: number) => {
    const path = join(dir.path, name);
    writeFileSync(path, content, { mode });
    // The umask may have taken bits away; the test wants these exactly.
    chmodSync(path, mode);
    return path;
  };
  const slipgate = (env: Record<string, string>, args: string[]) =>
    new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: `sqlite:${join(dir.path, 'go-live.db')}`, PUBLIC_URL: '', SECRETS_KEY: '', METRICS_TOKEN: '', UPSTREAMS: '', UPSTREAMS_FILE: '', CREDENTIALS_DIRECTORY: '', ...env } }, (_err, stdout, stderr) => resolve({ stdout, stderr })),
    );
  const goLive = async (env: Record<string, string>): Promise<Check> => {
    const { stdout, stderr } = await slipgate(env, ['doctor', '--go-live', '--json']);
    try {
      return (JSON.parse(stdout) as { checks: Check[] }).checks.find((c) => c.check === 'secret files')!;
    } catch {
      throw new Error(`no JSON report: ${stderr}`);
    }
  };

  it('blocks on each group- or world-readable secret file, naming the file and the chmod, and passes them at 0600', async () => {
    const secretsKey = randomBytes(32).toString('hex');
    const keyFile = write('SECRETS_KEY', `${secretsKey}\n`, 0o644);
    const credentials = join(dir.path, 'credentials');
    mkdirSync(credentials, { mode: 0o700 });
    const metricsToken = randomBytes(24).toString('hex');
    const credential = join(credentials, 'METRICS_TOKEN');
    writeFileSync(credential, metricsToken, { mode: 0o600 });
    const clientSecret = randomBytes(16).toString('hex');
    const secretFile = write('kbank-client-secret', clientSecret, 0o640);
    const tlsKey = write('kbank-key.pem', '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n', 0o600);
    // A certificate is public: 0644 is fine for it.
    write('kbank-cert.pem', '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n', 0o644);
    const upstreams = write(
      'upstreams.json',
      JSON.stringify([{ name: 'kbank-1', provider: 'kbank', baseUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecretFile: 'kbank-client-secret', tls: { certFile: 'kbank-cert.pem', keyFile: 'kbank-key.pem' } }]),
      0o600,
    );
    const env = { SECRETS_KEY_FILE: keyFile, CREDENTIALS_DIRECTORY: credentials, UPSTREAMS_FILE: upstreams };
    await slipgate(env, ['accounts', 'create', '--name', 'Shop', '--credits', '0']);

    const open = await goLive(env);
    expect(open.state).toBe('blocks');
    expect(open.detail).toBe(`SECRETS_KEY_FILE ${keyFile} is 0644, open to others than its owner; UPSTREAMS clientSecretFile ${secretFile} is 0640, open to others than its owner`);
    expect(open.fix).toBe(`chmod 600 ${JSON.stringify(keyFile)} ${JSON.stringify(secretFile)}`);
    for (const secret of [secretsKey, metricsToken, clientSecret]) expect(JSON.stringify(open)).not.toContain(secret);

    chmodSync(keyFile, 0o600);
    chmodSync(secretFile, 0o600);
    chmodSync(tlsKey, 0o640);
    expect(await goLive(env)).toMatchObject({ state: 'blocks', detail: `UPSTREAMS tls.keyFile ${tlsKey} is 0640, open to others than its owner` });
    chmodSync(tlsKey, 0o600);
    expect(await goLive(env)).toEqual({
      check: 'secret files',
      state: 'ok',
      detail: '5 files 0600 (SECRETS_KEY_FILE, the credential METRICS_TOKEN, UPSTREAMS_FILE, UPSTREAMS clientSecretFile, UPSTREAMS tls.keyFile)',
    });
  });
});
