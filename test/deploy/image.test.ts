// The container's start, without a container engine: the image's CMD, in its
// WORKDIR with its ENV (only the ports and the /data path replaced), as an
// unprivileged user, with the app folder read-only and only the data folder
// writable. It must create its SQLite database, verify a slip, pass its own
// HEALTHCHECK, and stop on SIGTERM within the stop grace the compose files give.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../helpers/temp.js';
import { readImageSpec } from './dockerfile.js';
import { DRAIN_BOUND_SECONDS, durationSeconds } from './drain.js';
import { giveToUnprivileged, runsAsRoot, unprivileged } from './unprivileged.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const image = readImageSpec();
const compose = parse(readFileSync(new URL('../../deploy/compose.sqlite.yml', import.meta.url), 'utf8')) as { services: { slipgate: { stop_grace_period: string } } };
const GRACE_MS = durationSeconds(compose.services.slipgate.stop_grace_period) * 1000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Makes `path` and everything under it read-only (a-w); symlinks (node_modules) are left alone, not followed. */
function readOnly(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) for (const entry of readdirSync(path)) readOnly(join(path, entry));
  chmodSync(path, stat.mode & ~0o222);
}

describe('the image, started as its CMD', () => {
  const dir = tempDir('slipgate-image-');
  const app = join(dir.path, 'app');
  const data = join(dir.path, 'data');
  let env: Record<string, string>;
  let logs: Record<string, unknown>[];
  let proc: ReturnType<typeof spawn>;
  let exited: Promise<unknown[]>;
  let publicPort: string;
  let adminPort: string;

  /** Runs a command in the image's WORKDIR, unprivileged, with the image's environment. */
  const inImage = (argv: string[], extraEnv: Record<string, string> = {}) => {
    const [command, ...args] = unprivileged(argv);
    return run(command!, args, { cwd: app, env: { ...env, ...extraEnv } });
  };

  beforeAll(async () => {
    // The image's build stage: dist/ from src/, node_modules, package.json. The
    // image compiles with tsc (npm run build); here esbuild transpiles the same
    // modules one file each, as the bench does: seconds instead of a minute
    // on a busy machine, and always the current sources (dist/ may be stale).
    mkdirSync(app);
    await build({
      absWorkingDir: join(ROOT, 'src'),
      entryPoints: sourceFiles(join(ROOT, 'src')),
      outdir: join(app, 'dist'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    // The CommonJS entry that sizes libuv's pool (entry.cts, thread-pool.cts), as tsc emits it: .cjs.
    await build({
      absWorkingDir: join(ROOT, 'src'),
      entryPoints: (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.cts')).map((f) => join(ROOT, 'src', f)),
      outdir: join(app, 'dist'),
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    // COPY bin ./bin: the CMD's launcher, which sizes V8's heap and becomes node.
    mkdirSync(join(app, 'bin'));
    copyFileSync(join(ROOT, 'bin', 'sized-node'), join(app, 'bin', 'sized-node'));
    // The installed packages, not copied (large): root's, and never writable by the unprivileged user either.
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
    readOnly(app);
    chmodSync(dir.path, 0o755);
    mkdirSync(data, { mode: 0o700 });
    giveToUnprivileged(data);

    // The image's ENV with its volume moved to `data` and ports the kernel picks.
    const volume = image.volumes[0]!;
    env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    for (const [key, value] of Object.entries(image.env)) env[key] = value.replaceAll(`${volume}/`, `${data}/`);
    env.PORT = '0';
    env.ADMIN_PORT = '0';
  }, 120_000);
  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    dir.remove();
  });

  it('is built to run unprivileged with its data in a volume, under an init that forwards SIGTERM', () => {
    expect(['', 'root', '0']).not.toContain(image.user);
    expect(image.workdir).toBe('/app');
    expect(image.volumes).toEqual(['/data']);
    expect(image.env.DATABASE_URL).toBe('sqlite:/data/slipgate.db');
    expect(image.runs).toContain(`mkdir /data && chown ${image.user}:${image.user} /data`);
    expect(image.entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(image.runs.some((r) => /apt-get install -y --no-install-recommends tini\b/.test(r))).toBe(true);
    expect(image.stopSignal).toBe('SIGTERM');
    expect(image.cmd).toEqual(['sh', 'bin/sized-node', 'dist/entry.cjs', 'serve']);
    expect(GRACE_MS / 1000).toBeGreaterThan(DRAIN_BOUND_SECONDS);
  });

  it('the unprivileged user can write the data folder and nothing of the app', async () => {
    const probe = `const fs = require('node:fs');
      const can = (p) => { try { fs.accessSync(p, fs.constants.W_OK); return true; } catch { return false; } };
      console.log(JSON.stringify(process.argv.slice(1).map(can)));`;
    const targets = [data, app, join(app, 'dist'), join(app, 'dist/entry.cjs'), join(app, 'package.json')];
    // The installed packages are root's here; a developer running the tests as
    // themself owns (and may write) their own node_modules.
    if (runsAsRoot) targets.push(join(app, 'node_modules'), join(app, 'node_modules/better-sqlite3'));
    const { stdout } = await inImage([process.execPath, '-e', probe, ...targets]);
    expect(JSON.parse(stdout)).toEqual(targets.map((target) => target === data));
    if (runsAsRoot) expect((await inImage(['id', '-u'])).stdout.trim()).toBe('65534');
  });

  it('starts, verifies a slip, answers its healthcheck and stops on SIGTERM within the grace', { timeout: 60_000 + GRACE_MS }, async () => {
    const [command, ...args] = unprivileged(image.cmd);
    proc = spawn(command!, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    exited = once(proc, 'exit');
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    logs = [];
    const listening = await new Promise<Record<string, string>>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, string>;
        logs.push(entry);
        if (entry.msg === 'slipgate listening') resolve(entry);
      });
      void exited.then(([code]) => reject(new Error(`slipgate exited (${code}) before listening: ${stderr}`)));
    });
    publicPort = new URL(listening.publicUrl!).port;
    // bin/sized-node held V8's heap to its cap (384 MB old, plus the young generation), or below on a small machine.
    expect(Number(listening.heapLimitMb)).toBeLessThan(384 + 64);
    adminPort = new URL(listening.adminUrl!).port;
    expect(listening.store).toBe('sqlite');
    expect(readdirSync(data)).toContain('slipgate.db');
    if (runsAsRoot) expect(statSync(join(data, 'slipgate.db')).uid).toBe(65534);

    // What `docker compose exec slipgate node dist/entry.cjs …` does: the same user, environment and folder.
    const created = JSON.parse((await inImage(['node', 'dist/entry.cjs', 'accounts', 'create', '--name', 'Image shop', '--credits', '2', '--json'])).stdout) as { apiKey: string };
    const qrcode = (await inImage(['node', 'dist/entry.cjs', 'sandbox', 'qr', '--amount', '250.00'])).stdout.trim();
    const res = await fetch(`http://127.0.0.1:${publicPort}/api/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': created.apiKey },
      body: JSON.stringify({ qrcode }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'success', data: { amount: 250 }, message: 'slip verified' });

    // The HEALTHCHECK, run as Docker runs it: inside the container, with its environment.
    await expect(inImage(image.healthcheck.cmd, { ADMIN_PORT: adminPort })).resolves.toBeDefined();

    proc.kill('SIGTERM');
    const graceOver = new Promise<'grace over'>((resolve) => setTimeout(resolve, GRACE_MS, 'grace over').unref());
    const outcome = await Promise.race([exited.then(([code, signal]) => ({ code, signal })), graceOver]);
    expect(outcome).toEqual({ code: 0, signal: null });
    expect(logs.map((l) => l.msg)).toContain('stopped');

    // Stopped: the same healthcheck now fails.
    await expect(inImage(image.healthcheck.cmd, { ADMIN_PORT: adminPort })).rejects.toMatchObject({ code: 1 });
  });
});
