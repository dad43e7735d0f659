// `slipgate doctor --go-live`: what still blocks real money on this server,
// each with the setting or command that fixes it (docs/deploy.md#go-live-check).
// Run where slipgate serves, with its settings (`sudo slipgate doctor
// --go-live`): it reads the same configuration, database and files.
import { nonAtomicReason, nonAtomicServer } from '../store/non-atomic.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { SECRET_SETTINGS, type Config } from '../config.js';
import { statOrNull } from '../files/durable-file.js';
import { CHALLENGE_HEADER, FORWARDED_FOR_HEADER, instanceProof, PROOF_HEADER } from '../domain/admin/instance-proof.js';
import type { Store } from '../domain/ports/store.js';
import { isUnsealed } from '../domain/secret-box.js';
import { sqlitePath } from '../store/database-url.js';
import { loadUpstreamConfigs } from '../upstream/config.js';

/** `blocks`: going live must wait for its fix; `not checked`: this host cannot tell (said why), not a blocker. */
export type CheckState = 'ok' | 'blocks' | 'not checked';

export interface GoLiveCheck {
  check: string;
  state: CheckState;
  detail: string;
  /** The setting or command that fixes it, for a blocker. */
  fix?: string;
}

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
const ENV_FILE = '/etc/slipgate/slipgate.env';
const KEY_FILE = '/etc/slipgate/credentials/SECRETS_KEY';

const ok = (check: string, detail: string): GoLiveCheck => ({ check, state: 'ok', detail });
// The contract's route (http/public-app.ts), not imported: the CLI loads no express.
const VERIFY_PATH = '/api/v1/verify';
const blocks = (check: string, detail: string, fix: string): GoLiveCheck => ({ check, state: 'blocks', detail, fix });
const notChecked = (check: string, why: string): GoLiveCheck => ({ check, state: 'not checked', detail: `not checked: ${why}` });

export async function goLiveChecks(config: Config, store: Store, opts: GoLiveOptions): Promise<GoLiveCheck[]> {
  const reached = await publicUrlCheck(config);
  return [
    bankCheck(config),
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

function bankCheck(config: Config): GoLiveCheck {
  const name = 'bank network';
  let configs;
  try {
    configs = loadUpstreamConfigs(config.env);
  } catch (err) {
    return blocks(name, (err as Error).message.split('\n').join('; '), 'correct UPSTREAMS_FILE (docs/banks.md)');
  }
  if (configs.length === 0) return blocks(name, 'the sandbox answers: no UPSTREAMS or UPSTREAMS_FILE is set', `UPSTREAMS_FILE=<your banks' domains> in ${ENV_FILE} (docs/banks.md#getting-access)`);
  const enabled = configs.filter((c) => c.enabled);
  const sandbox = enabled.filter((c) => c.provider === 'sandbox');
  if (sandbox.length > 0) return blocks(name, `the sandbox is an enabled domain: ${sandbox.map((c) => c.name).join(', ')}`, 'remove the sandbox domains from UPSTREAMS_FILE, then systemctl reload slipgate');
  if (enabled.length === 0) return blocks(name, 'every domain is disabled', 'enable a bank domain in UPSTREAMS_FILE ("enabled": true)');
  return ok(name, `sandbox off; ${enabled.map((c) => `${c.name} (${c.provider})`).join(', ')}`);
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

/**
 * Every file a secret was read from (NAME_FILE, systemd's credential NAME,
 * UPSTREAMS_FILE and the secret *File entries of its domains): one another
 * user can read gives the secret away whatever else is right. Each is named
 * with its mode, never its content.
 */
function secretFilesCheck(env: NodeJS.ProcessEnv): GoLiveCheck {
  const name = 'secret files';
  const files = secretFiles(env);
  const open = files.flatMap(({ setting, path }) => {
    const stat = statOrNull(path);
    // One that cannot be read is the bank network's or the configuration's blocker already.
    return stat && (stat.mode & 0o077) !== 0 ? [{ setting, path, mode: (stat.mode & 0o777).toString(8).padStart(4, '0') }] : [];
  });
  if (open.length > 0) {
    const detail = open.map((f) => `${f.setting} ${f.path} is ${f.mode}, open to others than its owner`).join('; ');
    return blocks(name, detail, `chmod 600 ${open.map((f) => JSON.stringify(f.path)).join(' ')}`);
  }
  return ok(name, files.length === 0 ? 'no secret is read from a file' : `${files.length} file${files.length === 1 ? '' : 's'} 0600 (${files.map((f) => f.setting).join(', ')})`);
}

/** Domain fields naming a file that is not secret: a CA or a client certificate is public. */
const PUBLIC_FILE_FIELDS = new Set(['caFile', 'certFile']);

function secretFiles(env: NodeJS.ProcessEnv): { setting: string; path: string }[] {
  const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
  const files: { setting: string; path: string }[] = [];
  for (const setting of SECRET_SETTINGS) {
    const file = env[`${setting}_FILE`];
    if (set(file)) files.push({ setting: `${setting}_FILE`, path: resolve(file) });
    // config.env holds the value read from a credential already: a credential file there is checked whichever way it was set.
    else if (set(env.CREDENTIALS_DIRECTORY) && existsSync(join(env.CREDENTIALS_DIRECTORY, setting))) {
      files.push({ setting: `the credential ${setting}`, path: join(env.CREDENTIALS_DIRECTORY, setting) });
    }
  }
  const upstreamsFile = env.UPSTREAMS_FILE?.trim();
  let upstreams: string | undefined = env.UPSTREAMS?.trim() || undefined;
  let baseDir = process.cwd();
  if (upstreamsFile && !upstreams) {
    const path = resolve(upstreamsFile);
    files.push({ setting: 'UPSTREAMS_FILE', path });
    baseDir = dirname(path);
    upstreams = readOrUndefined(path);
  }
  for (const entry of jsonArrayOrEmpty(upstreams)) files.push(...fileFields(entry, baseDir, ''));
  return files;
}

/** The *File fields of a domain entry, nested ones (tls.keyFile) too; relative paths resolve as the bank config resolves them. */
function fileFields(value: unknown, baseDir: string, prefix: string): { setting: string; path: string }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([field, v]) => {
    if (typeof v === 'string' && field.endsWith('File') && !PUBLIC_FILE_FIELDS.has(field)) return [{ setting: `UPSTREAMS ${prefix}${field}`, path: resolve(baseDir, v) }];
    return fileFields(v, baseDir, `${prefix}${field}.`);
  });
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What the bank network check reports as broken is not looked into here. */
function jsonArrayOrEmpty(text: string | undefined): unknown[] {
  if (text === undefined) return [];
  try {
    const json: unknown = JSON.parse(text);
    return Array.isArray(json) ? json : [];
  } catch {
    return [];
  }
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
