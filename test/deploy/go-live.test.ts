// `slipgate doctor --go-live` on the machine as an operator runs it: a real
// slipgate (child process) behind the shipped single-host nginx recipe with
// a certificate at certbot's path, PUBLIC_URL pointing at nginx. A sandbox
// deployment exits 1 naming every blocker with its fix; a configured one
// (a bank domain, SECRETS_KEY as a systemd-style credential, the proxy hop
// counted right, private files) exits 0.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSlipgate, type Child } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';
import { freePort, RECIPES, startNginx, type Nginx } from './nginx.js';

const ENTRY = new URL('../../dist/entry.cjs', import.meta.url).pathname;
const run = promisify(execFile);

interface Check {
  check: string;
  state: 'ok' | 'blocks' | 'not checked';
  detail: string;
  fix?: string;
}

async function slipgate(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ENTRY, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A deployment: its settings, a slipgate serving them and the shipped nginx in front; PUBLIC_URL is nginx's https address. */
async function deploy(dir: string, settings: Record<string, string>): Promise<{ env: Record<string, string>; server: Child; nginx: Nginx }> {
  const server = await spawnSlipgate({ ...settings, LOG_FORMAT: 'json' });
  // nginx runs unprivileged: it passes through the scratch folder to its own.
  chmodSync(dir, 0o711);
  mkdirSync(join(dir, 'nginx'));
  const nginx = await startNginx(join(dir, 'nginx'), [new URL(server.publicUrl).host, `127.0.0.1:${await freePort()}`], RECIPES[1]);
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, nginx.certificate);
  return { env: { ...settings, PUBLIC_URL: `https://127.0.0.1:${nginx.port}`, NODE_EXTRA_CA_CERTS: ca }, server, nginx };
}

describe('slipgate doctor --go-live', { timeout: 180_000 }, () => {
  const stops: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });
  const scratch = () => {
    const dir = tempDir('slipgate-go-live-');
    stops.push(dir.remove);
    return dir.path;
  };

  it('on a sandbox deployment exits 1 and names every blocker with its fix', async () => {
    const dir = scratch();
    const db = join(dir, 'slipgate.db');
    const settings = { DATABASE_URL: `sqlite:${db}`, TRUST_PROXY_HOPS: '0', SECRETS_KEY: '' };
    const { accountId } = JSON.parse((await slipgate(settings, ['accounts', 'create', '--name', 'Shop', '--credits', '1', '--json'])).stdout) as { accountId: string };
    const hook = JSON.parse((await slipgate(settings, ['webhooks', 'add', accountId, '--url', 'https://203.0.113.10/hooks', '--json'])).stdout) as { id: string };
    // As an older slipgate or a hand copy left them: readable by everyone.
    chmodSync(db, 0o644);
    const backups = join(dir, 'backups');
    mkdirSync(backups);
    writeFileSync(join(backups, 'slipgate-Mon.db'), 'a copy', { mode: 0o644 });
    chmodSync(join(backups, 'slipgate-Mon.db'), 0o644);
    const { env, server, nginx } = await deploy(dir, settings);
    stops.push(() => nginx.stop(), async () => {
      server.proc.kill('SIGTERM');
      await server.exited;
    });

    const screen = await slipgate(env, ['doctor', '--go-live', '--files', backups, '--min-free-mb', '100000000']);
    expect(screen.code, screen.stderr).toBe(1);
    expect(screen.stdout).toMatch(/^BLOCKS bank network +the sandbox answers/m);
    expect(screen.stdout).toMatch(/^Not ready: 6 checks block going live\.$/m);
    const json = await slipgate(env, ['doctor', '--go-live', '--files', backups, '--min-free-mb', '100000000', '--json']);
    expect(json.code).toBe(1);
    const { ready, checks } = JSON.parse(json.stdout) as { ready: boolean; checks: Check[] };
    expect(ready).toBe(false);
    const by = Object.fromEntries(checks.map((c) => [c.check, c]));
    expect(Object.keys(by)).toEqual(['bank network', 'SECRETS_KEY', 'database', 'stored secrets', 'PUBLIC_URL', 'TRUST_PROXY_HOPS', 'file modes', 'secret files', 'timers', 'free disk']);
    expect(by['bank network']).toMatchObject({ state: 'blocks', fix: expect.stringContaining('UPSTREAMS_FILE=') });
    // The key the first start made beside the database: it proves the instance, and is to become a credential.
    expect(by.SECRETS_KEY).toMatchObject({ state: 'blocks', detail: expect.stringContaining(join(dir, 'secrets.key')), fix: expect.stringContaining('/etc/slipgate/credentials/SECRETS_KEY') });
    expect(by.database).toMatchObject({ state: 'ok', detail: 'sqlite: a guarded update is atomic' });
    expect(by['stored secrets']).toMatchObject({ state: 'blocks', detail: `stored unsealed (plain): webhook ${hook.id}` });
    expect(by.PUBLIC_URL).toMatchObject({ state: 'ok', detail: expect.stringContaining("answers this instance's challenge") });
    // nginx wrote one X-Forwarded-For address; slipgate trusts none.
    expect(by.TRUST_PROXY_HOPS).toMatchObject({ state: 'blocks', fix: expect.stringContaining('TRUST_PROXY_HOPS=1') });
    expect(by['file modes']!.state).toBe('blocks');
    expect(by['file modes']!.detail).toContain(`${db} is 0644`);
    expect(by['file modes']!.detail).toContain(`${join(backups, 'slipgate-Mon.db')} is 0644`);
    expect(by.timers).toMatchObject({ state: 'not checked', detail: expect.stringContaining('not checked: no systemd') });
    expect(by['free disk']).toMatchObject({ state: 'blocks', detail: expect.stringContaining('under 100000000 MB') });
    for (const c of checks.filter((check) => check.state === 'blocks')) expect(screen.stdout, c.check).toContain(`fix: ${c.fix}`);
  });

  it('on a configured deployment exits 0', async () => {
    const dir = scratch();
    const db = join(dir, 'slipgate.db');
    // SECRETS_KEY as systemd hands it over: a credential named like the setting.
    const credentials = join(dir, 'credentials');
    mkdirSync(credentials, { mode: 0o700 });
    writeFileSync(join(credentials, 'SECRETS_KEY'), `${'5e'.repeat(32)}\n`, { mode: 0o600 });
    const upstreams = join(dir, 'upstreams.json');
    writeFileSync(upstreams, JSON.stringify([{ name: 'kbank-1', provider: 'kbank', baseUrl: 'https://203.0.113.10', clientId: 'id', clientSecret: 'secret' }]), { mode: 0o600 });
    const settings = { DATABASE_URL: `sqlite:${db}`, TRUST_PROXY_HOPS: '1', CREDENTIALS_DIRECTORY: credentials, UPSTREAMS_FILE: upstreams, SECRETS_KEY: '' };
    const { env, server, nginx } = await deploy(dir, settings);
    stops.push(() => nginx.stop(), async () => {
      server.proc.kill('SIGTERM');
      await server.exited;
    });
    const { accountId } = JSON.parse((await slipgate(env, ['accounts', 'create', '--name', 'Shop', '--credits', '1', '--json'])).stdout) as { accountId: string };
    expect((await slipgate(env, ['webhooks', 'add', accountId, '--url', 'https://203.0.113.10/hooks'])).code).toBe(0);
    const backups = join(dir, 'backups');
    mkdirSync(backups);
    expect((await slipgate(env, ['backup', '--to', join(backups, 'slipgate-Mon.db')])).code).toBe(0);

    const screen = await slipgate(env, ['doctor', '--go-live', '--files', backups]);
    expect(screen.stdout).not.toMatch(/^BLOCKS/m);
    expect(screen.code, screen.stdout).toBe(0);
    expect(screen.stdout).toMatch(/^ok +bank network +sandbox off; kbank-1 \(kbank\)$/m);
    expect(screen.stdout).toMatch(new RegExp(`^ok +PUBLIC_URL +https://127\\.0\\.0\\.1:${nginx.port} answers this instance's challenge on /api/v1/verify through the proxy$`, 'm'));
    expect(screen.stdout).toMatch(/^ok +TRUST_PROXY_HOPS +1: the proxies wrote 1 X-Forwarded-For address$/m);
    expect(screen.stdout).toMatch(/^ok +stored secrets +all sealed \(1 webhook endpoints, 0 LINE channels\)$/m);
    expect(screen.stdout).toMatch(/^--     timers +not checked: no systemd/m);
    expect(screen.stdout).toMatch(/^Ready to go live: nothing blocks\.$/m);

    // Another slipgate at PUBLIC_URL (another key): not this instance.
    const other = await slipgate({ ...env, CREDENTIALS_DIRECTORY: '', SECRETS_KEY: '7a'.repeat(32) }, ['doctor', '--go-live', '--files', backups, '--json']);
    expect(other.code).toBe(1);
    const checks = (JSON.parse(other.stdout) as { checks: Check[] }).checks;
    expect(checks.find((c) => c.check === 'PUBLIC_URL')).toMatchObject({ state: 'blocks', detail: expect.stringContaining('from another slipgate') });
  });
});
