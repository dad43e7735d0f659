// `slipgate doctor --go-live`: what still blocks real money on this server,
// each with the setting or command that fixes it (docs/deploy.md#go-live-check).
// Run where slipgate serves, with its settings (`sudo slipgate doctor
// --go-live`): it reads the same configuration, database and files.
import { nonAtomicReason, nonAtomicServer } from '../store/non-atomic.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import { statOrNull } from '../files/durable-file.js';
import { CHALLENGE_HEADER, FORWARDED_FOR_HEADER, instanceProof, PROOF_HEADER } from '../domain/admin/instance-proof.js';
import type { Store } from '../domain/ports/store.js';
import { isUnsealed } from '../domain/secret-box.js';
import { sqlitePath } from '../store/database-url.js';
import { loadUpstreamConfigs, type UpstreamConfig } from '../upstream/config.js';
import { blocks, ENV_FILE, notChecked, ok, type GoLiveCheck } from './go-live-check.js';
import { networkChecks } from './go-live-networks.js';
import { secretFilesCheck } from './go-live-secret-files.js';

export type { GoLiveCheck } from './go-live-check.js';

export interface GoLiveOptions {
  /** Folders of backups and exports whose files must be private too. */
  folders: string[];
  /** Free space under the database below this blocks. */
  minFreeMb: number;
  /** Where systemd runs (/run/systemd/system exists): the timers are asked about. */
  systemd: boolean;
}

/** The timers deploy/systemd ships: the daily backup and the daily books check. */
const TIMERS = ['slipgate-backup.timer', 'slipgate-doctor.timer'];
export const DEFAULT_BACKUP_FOLDER = '/var/lib/slipgate-backups';
const KEY_FILE = '/etc/slipgate/credentials/SECRETS_KEY';

// The contract's route (http/public-app.ts), not imported: the CLI loads no express.
const VERIFY_PATH = '/api/v1/verify';

export async function goLiveChecks(config: Config, store: Store, opts: GoLiveOptions): Promise<GoLiveCheck[]> {
  const network = bankCheck(config);
  const reached = await publicUrlCheck(config);
  return [
    network.check,
    ...(await networkChecks(network.domains)),
    config.secretsKeyFile
      ? blocks(
          'SECRETS_KEY',
          `the key a first start made, in ${config.secretsKeyFile} beside the database: every copy of the data folder carries it`,
          `sudo install -m 600 ${config.secretsKeyFile} ${KEY_FILE} (a credential, deploy/systemd), then rm ${config.secretsKeyFile} and restart slipgate`,
        )
      : config.SECRETS_KEY
      ? ok('SECRETS_KEY', 'set: webhook and LINE secrets are sealed')
      : blocks('SECRETS_KEY', 'not set: webhook secrets are stored unsealed, LINE cannot be connected', `sudo sh -c 'umask 077 && openssl rand -hex 32 > ${KEY_FILE}' (deploy/systemd/install.sh makes it), then restart slipgate`),
    await atomicCheck(store),
    await unsealedCheck(store),
    reached.check,
    proxyHopsCheck(config, reached.forwardedFor),
    fileModesCheck(config, opts.folders),
    secretFilesCheck(config.env),
    await timersCheck(opts.systemd),
    diskCheck(config, opts.minFreeMb),
  ];
}

/** The bank network as configured, and its enabled domains (each checked further by go-live-networks.ts). */
function bankCheck(config: Config): { check: GoLiveCheck; domains: UpstreamConfig[] } {
  const name = 'bank network';
  const none = (check: GoLiveCheck) => ({ check, domains: [] });
  let configs;
  try {
    configs = loadUpstreamConfigs(config.env);
  } catch (err) {
    return none(blocks(name, (err as Error).message.split('\n').join('; '), 'correct UPSTREAMS_FILE (docs/banks.md)'));
  }
  if (configs.length === 0) return none(blocks(name, 'the sandbox answers: no UPSTREAMS or UPSTREAMS_FILE is set', `UPSTREAMS_FILE=<your banks' domains> in ${ENV_FILE} (docs/banks.md#getting-access)`));
  const enabled = configs.filter((c) => c.enabled);
  const sandbox = enabled.filter((c) => c.provider === 'sandbox');
  if (sandbox.length > 0) return none(blocks(name, `the sandbox is an enabled domain: ${sandbox.map((c) => c.name).join(', ')}`, 'remove the sandbox domains from UPSTREAMS_FILE, then systemctl reload slipgate'));
  if (enabled.length === 0) return none(blocks(name, 'every domain is disabled', 'enable a bank domain in UPSTREAMS_FILE ("enabled": true)'));
  return { check: ok(name, `sandbox off; ${enabled.map((c) => `${c.name} (${c.provider})`).join(', ')}`), domains: enabled };
}

/** A server that can overdraw credits blocks going live, allowed for a test or not (store/non-atomic.ts). */
async function atomicCheck(store: Store): Promise<GoLiveCheck> {
  const name = 'database';
  const server = await nonAtomicServer(store);
  if (server) return blocks(name, nonAtomicReason(server), 'point DATABASE_URL at MongoDB, PostgreSQL or SQLite (docs/storage.md)');
  return ok(name, `${store.engine}: a guarded update is atomic`);
}

async function unsealedCheck(store: Store): Promise<GoLiveCheck> {
  const name = 'stored secrets';
  const plain: string[] = [];
  let endpoints = 0;
  for (let after: string | null = null; ; ) {
    const page = await store.listAccounts({ includeDeleted: true, limit: 500, after });
    for (const account of page.items) {
      for (const endpoint of await store.listWebhookEndpoints(account.id)) {
        if (endpoint.removedAt) continue;
        endpoints++;
        if (isUnsealed(endpoint.sealedSecret)) plain.push(`webhook ${endpoint.id}`);
      }
    }
    if (!page.next) break;
    after = page.next;
  }
  const channels = await store.listLineChannels();
  for (const channel of channels) if (isUnsealed(channel.sealedSecret) || isUnsealed(channel.sealedToken)) plain.push(`LINE channel ${channel.channelId}`);
  if (plain.length === 0) return ok(name, `all sealed (${endpoints} webhook endpoints, ${channels.length} LINE channels)`);
  const shown = plain.length > 4 ? [...plain.slice(0, 4), `${plain.length - 4} more`] : plain;
  return blocks(
    name,
    `stored unsealed (plain): ${shown.join(', ')}`,
    'with SECRETS_KEY set, add each again and remove the old one: slipgate webhooks add <account> --url <url> --secret-file - (the receiver keeps its secret), webhooks remove <id>; line disconnect <id>, line connect',
  );
}

interface Reached {
  check: GoLiveCheck;
  /** Addresses X-Forwarded-For held when the call reached slipgate; null: it did not. */
  forwardedFor: number | null;
}

async function publicUrlCheck(config: Config): Promise<Reached> {
  const name = 'PUBLIC_URL';
  const url = config.PUBLIC_URL;
  if (!url) return { check: blocks(name, 'not set', `PUBLIC_URL=https://<your host> in ${ENV_FILE}`), forwardedFor: null };
  if (!url.startsWith('https://')) return { check: blocks(name, `${url} is not https: API keys would cross the network in clear`, 'PUBLIC_URL=https://<your host>, behind nginx with a certificate (docs/deploy.md)'), forwardedFor: null };
  const challenge = randomBytes(24).toString('base64url');
  // A keyless verify request: the contract's 1020, which charges nothing and
  // reads no body; its headers carry what this command checks.
  const target = `${url}${VERIFY_PATH}`;
  let res: Response;
  let body: { status?: unknown; code?: unknown };
  try {
    res = await fetch(target, { method: 'POST', headers: { [CHALLENGE_HEADER]: challenge, 'content-type': 'application/json' }, body: '{}', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    body = (await res.json().catch(() => ({}))) as typeof body;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    return { check: blocks(name, `${target} did not answer (${why})`, 'check DNS, that nginx runs (nginx -t) and its certificate (certbot certificates)'), forwardedFor: null };
  }
  const counted = res.headers.get(FORWARDED_FOR_HEADER);
  if (res.status !== 401 || body.code !== 1020 || counted === null || !/^\d+$/.test(counted)) {
    return {
      check: blocks(name, `${target} answered HTTP ${res.status} without slipgate's challenged 1020 (not slipgate, or one older than this command)`, "point the proxy at this slipgate's public listener (deploy/nginx/slipgate-single-host.conf)"),
      forwardedFor: null,
    };
  }
  const forwardedFor = Number(counted);
  if (!config.SECRETS_KEY) return { check: blocks(name, `${url} answers, but without SECRETS_KEY it cannot prove it is this instance`, 'set SECRETS_KEY (above)'), forwardedFor };
  if (res.headers.get(PROOF_HEADER) !== instanceProof(config.SECRETS_KEY, challenge)) {
    return { check: blocks(name, `${url} answers, but from another slipgate (not this SECRETS_KEY): another host, or one not restarted since its key changed`, 'point DNS and the proxy at this server, or restart slipgate'), forwardedFor };
  }
  return { check: ok(name, `${url} answers this instance's challenge on ${VERIFY_PATH} through the proxy`), forwardedFor };
}

function proxyHopsCheck(config: Config, forwardedFor: number | null): GoLiveCheck {
  const name = 'TRUST_PROXY_HOPS';
  const hops = config.TRUST_PROXY_HOPS;
  if (forwardedFor === null) return notChecked(name, `PUBLIC_URL did not reach slipgate (TRUST_PROXY_HOPS=${hops})`);
  if (forwardedFor === hops) return ok(name, `${hops}: the proxies wrote ${forwardedFor} X-Forwarded-For address${forwardedFor === 1 ? '' : 'es'}`);
  const effect =
    forwardedFor > hops
      ? 'slipgate takes a proxy for the client: keys locked to IP ranges fail, and per-address limits count the proxy'
      : 'slipgate reads an address the client wrote itself: keys locked to IP ranges can be unlocked with a forged header';
  return blocks(name, `${hops}, but the proxies wrote ${forwardedFor} X-Forwarded-For address${forwardedFor === 1 ? '' : 'es'}: ${effect}`, `TRUST_PROXY_HOPS=${forwardedFor} in ${ENV_FILE}`);
}

function fileModesCheck(config: Config, folders: string[]): GoLiveCheck {
  const name = 'file modes';
  const database = sqlitePath(config.DATABASE_URL);
  const files: string[] = [];
  if (database !== null && database !== ':memory:') files.push(...[database, `${database}-wal`, `${database}-shm`].map((f) => resolve(f)).filter((f) => existsSync(f)));
  if (config.secretsKeyFile) files.push(config.secretsKeyFile);
  const checked: string[] = [];
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    checked.push(folder);
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      // A backup being written may be renamed away meanwhile: what is gone is not checked.
      if (statOrNull(path)?.isFile()) files.push(path);
    }
  }
  const uid = process.getuid?.();
  const problems: string[] = [];
  for (const file of files) {
    const stat = statOrNull(file);
    if (!stat) continue;
    if ((stat.mode & 0o077) !== 0) problems.push(`${file} is ${(stat.mode & 0o777).toString(8).padStart(4, '0')}`);
    if (uid !== undefined && stat.uid !== uid) problems.push(`${file} is owned by uid ${stat.uid}, not the service user (uid ${uid})`);
  }
  const where = [database === null ? `${config.DATABASE_URL.split(':')[0]}: its server keeps the database files` : 'the database', ...checked].join(', ');
  if (problems.length > 0) {
    const shown = problems.length > 4 ? [...problems.slice(0, 4), `${problems.length - 4} more`] : problems;
    return blocks(name, shown.join('; '), `chmod 600 <file>; chown to the service user (sudo slipgate runs as it: files it writes are right)`);
  }
  return ok(name, `${files.length} files 0600 and the service user's (${where})`);
}

async function timersCheck(systemd: boolean): Promise<GoLiveCheck> {
  const name = 'timers';
  if (!systemd) return notChecked(name, 'no systemd on this host; schedule slipgate backup and slipgate doctor another way (docs/operations.md)');
  const off: string[] = [];
  for (const timer of TIMERS) {
    const state = await promisify(execFile)('systemctl', ['is-enabled', timer]).then(
      ({ stdout }) => stdout.trim(),
      (err: { stdout?: string }) => err.stdout?.trim() || 'not found',
    );
    if (state !== 'enabled') off.push(`${timer} ${state}`);
  }
  if (off.length > 0) return blocks(name, off.join(', '), `sudo systemctl enable --now ${TIMERS.join(' ')}`);
  return ok(name, `${TIMERS.join(', ')} enabled`);
}

function diskCheck(config: Config, minFreeMb: number): GoLiveCheck {
  const name = 'free disk';
  const database = sqlitePath(config.DATABASE_URL);
  if (database === null || database === ':memory:') return notChecked(name, 'the database is on its own server; watch its disk there');
  const stats = statfsSync(dirname(resolve(database)));
  const freeMb = Math.floor((stats.bavail * stats.bsize) / 1_048_576);
  const sizeMb = Math.ceil(statSync(resolve(database)).size / 1_048_576);
  const detail = `${freeMb} MB free beside the database (${sizeMb} MB)`;
  if (freeMb < minFreeMb) return blocks(name, `${detail}; under ${minFreeMb} MB`, 'free space or move DATABASE_URL to a larger disk (docs/deploy.md#sizing)');
  return ok(name, detail);
}
