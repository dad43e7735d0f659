// A real, unprivileged nginx (Debian's; .ci/run installs it) running the
// shipped deploy/nginx/slipgate.conf. Only ports and paths are replaced, each
// at exactly one place in the file, so a changed recipe fails here loudly
// instead of being tested in a shape nobody ships.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { createServer, connect } from 'node:net';
import { dirname, join } from 'node:path';
import { giveToUnprivileged, unprivileged } from './unprivileged.js';

export const RECIPE = new URL('../../deploy/nginx/slipgate.conf', import.meta.url).pathname;

/** A shipped recipe, the two upstream servers and the certificate paths it names, replaced by this machine's. */
export interface Recipe {
  name: string;
  path: string;
  upstreams: [string, string];
  certificate: { cert: string; key: string };
  /** A port-80 server for certbot: its listen line and webroot are replaced too. */
  certbot?: { host: string; webroot: string };
}

/** The host name the single-host recipe ships with (the one thing an operator edits). */
const CERTBOT_HOST = 'slipgate.example.com';

export const RECIPES: Recipe[] = [
  {
    name: 'compose (slipgate.conf)',
    path: RECIPE,
    upstreams: ['slipgate-1:3000', 'slipgate-2:3000'],
    certificate: { cert: '/etc/nginx/tls/fullchain.pem', key: '/etc/nginx/tls/privkey.pem' },
  },
  {
    name: 'single host (slipgate-single-host.conf)',
    path: new URL('../../deploy/nginx/slipgate-single-host.conf', import.meta.url).pathname,
    upstreams: ['127.0.0.1:3000', '127.0.0.1:3002'],
    // certbot's layout: /etc/letsencrypt/live/<host>/.
    certificate: { cert: `/etc/letsencrypt/live/${CERTBOT_HOST}/fullchain.pem`, key: `/etc/letsencrypt/live/${CERTBOT_HOST}/privkey.pem` },
    certbot: { host: CERTBOT_HOST, webroot: '/var/www/html' },
  },
];
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

export interface Nginx {
  port: number;
  /** The port-80 server's port, for a recipe with one (certbot's). */
  httpPort?: number;
  /** Where that server answers /.well-known/acme-challenge/ from (certbot's --webroot, under the test's folder). */
  webroot?: string;
  /** The master process. */
  pid: number;
  /** The self-signed certificate it serves (trust it as the CA). */
  certificate: string;
  /**
   * Rewrites the rendered recipe and reloads (`nginx -s reload`, SIGHUP);
   * resolves once every old worker finished its requests and exited.
   */
  reload(edit: (conf: string) => string): Promise<void>;
  stop(): Promise<void>;
}

/** Replaces the one place `pattern` matches; throws when it matches none or several. */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const matches = text.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'));
  if (matches?.length !== 1) throw new Error(`recipe: expected exactly one match of ${pattern}, found ${matches?.length ?? 0}`);
  return text.replace(pattern, replacement);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The shipped recipe with the certificate paths of this machine (all `nginx -t` needs). */
export function withCertificates(recipe: Recipe, text: string, at: { cert: string; key: string }): string {
  text = replaceOnce(text, new RegExp(`ssl_certificate +${escaped(recipe.certificate.cert)};`), `ssl_certificate ${at.cert};`);
  return replaceOnce(text, new RegExp(`ssl_certificate_key +${escaped(recipe.certificate.key)};`), `ssl_certificate_key ${at.key};`);
}

/**
 * A self-signed certificate where the recipe looks for one, under `dir` as
 * the root: for the single-host recipe, certbot's own
 * <dir>/etc/letsencrypt/live/<host>/fullchain.pem and privkey.pem.
 */
export function certificateAtShippedPath(recipe: Recipe, dir: string): { cert: string; key: string } {
  const made = testCertificate(dir);
  const at = { cert: join(dir, recipe.certificate.cert), key: join(dir, recipe.certificate.key) };
  mkdirSync(dirname(at.cert), { recursive: true });
  mkdirSync(dirname(at.key), { recursive: true });
  renameSync(made.cert, at.cert);
  renameSync(made.key, at.key);
  return at;
}

/** The shipped recipe with the instances, listen ports, certificate paths and webroot of this machine. */
function renderRecipe(recipe: Recipe, at: { port: number; httpPort?: number; webroot?: string; instances: [string, string]; cert: string; key: string }): string {
  let text = readFileSync(recipe.path, 'utf8');
  text = replaceOnce(text, new RegExp(`server ${escaped(recipe.upstreams[0])} `), `server ${at.instances[0]} `);
  text = replaceOnce(text, new RegExp(`server ${escaped(recipe.upstreams[1])} `), `server ${at.instances[1]} `);
  text = replaceOnce(text, /listen 443 ssl;/, `listen 127.0.0.1:${at.port} ssl;`);
  if (recipe.certbot) {
    text = replaceOnce(text, /listen 80;/, `listen 127.0.0.1:${at.httpPort!};`);
    text = replaceOnce(text, new RegExp(`root ${escaped(recipe.certbot.webroot)};`), `root ${at.webroot!};`);
  }
  return withCertificates(recipe, text, at);
}

/** A self-signed certificate for 127.0.0.1 and localhost, made now, in `dir`. */
function testCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=slipgate proxy test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function startNginx(dir: string, instances: [string, string], recipe: Recipe = RECIPES[0]!): Promise<Nginx> {
  const { cert, key } = certificateAtShippedPath(recipe, dir);
  const port = await freePort();
  const httpPort = recipe.certbot ? await freePort() : undefined;
  const webroot = recipe.certbot ? join(dir, recipe.certbot.webroot) : undefined;
  if (webroot) mkdirSync(webroot, { recursive: true });
  const conf = join(dir, 'slipgate.conf');
  writeFileSync(conf, renderRecipe(recipe, { port, httpPort, webroot, instances, cert, key }));
  writeMainConf(dir);
  chmodSync(dir, 0o755);
  giveToUnprivileged(dir);
  const [command, ...args] = unprivileged([nginxPath(), '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;']);
  const proc = spawn(command!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(proc, 'exit');
  await listening(port, proc, () => stderr);
  return {
    port,
    ...(httpPort === undefined ? {} : { httpPort, webroot }),
    pid: proc.pid!,
    certificate: readFileSync(cert, 'utf8'),
    async reload(edit) {
      writeFileSync(conf, edit(readFileSync(conf, 'utf8')));
      const before = workersOf(proc.pid!);
      proc.kill('SIGHUP');
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}) on reload: ${stderr}`);
        const now = workersOf(proc.pid!);
        if (now.length > 0 && now.every((pid) => !before.includes(pid))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

export function nginxPath(): string {
  if (!NGINX) throw new Error('nginx is not installed: apt-get install nginx-light (.ci/run does)');
  return NGINX;
}

/** What Debian's /etc/nginx/nginx.conf would be, with every path it writes in `dir`; it includes `dir`/slipgate.conf. */
export function writeMainConf(dir: string): void {
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr notice;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/slipgate.conf;
}
`);
}

/** The pids of the master's children: its workers, old ones still finishing included. */
function workersOf(master: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master;
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

/** Resolves once nginx accepts connections on `port`; rejects if it exits first. */
async function listening(port: number, proc: ChildProcess, stderr: () => string): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}): ${stderr()}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.on('connect', () => socket.destroy());
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface CallOptions {
  path?: string;
  method?: string;
  /** The loopback address the client connects from. */
  from?: string;
  headers?: Record<string, string>;
  body?: string;
  /** false: do not trust the test certificate. */
  trust?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One plain-HTTP request to the recipe's port-80 server, with the Host header a browser or certbot's CA would send. */
export function plainHttp(nginx: Nginx, opts: { host: string; path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: nginx.httpPort, path: opts.path, method: opts.method ?? 'GET', agent: false, headers: { host: opts.host, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** One HTTPS request through nginx, on a connection of its own. */
export function callThrough(nginx: Nginx, opts: CallOptions): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: nginx.port,
        path: opts.path ?? '/api/v1/verify',
        method: opts.method ?? 'POST',
        localAddress: opts.from ?? '127.0.0.1',
        ca: opts.trust === false ? undefined : nginx.certificate,
        agent: false,
        headers: { 'content-type': 'application/json', ...opts.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text for the assertion to show
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
