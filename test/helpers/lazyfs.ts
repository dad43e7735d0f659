// A disk that can lose power: lazyfs (test/powerloss/lazyfs) mounted on a
// temporary folder. Reads see every write; only what was fsynced reaches the
// backing folder, and cut() drops the rest, like pulling the plug. There is
// no fallback: a machine that cannot mount FUSE fails the test, with the
// reason.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { tempDir } from './temp.js';

const exec = promisify(execFile);
const SCRIPT = new URL('../../scripts/lazyfs.sh', import.meta.url).pathname;

export interface LazyDisk {
  /** Where the file system is mounted. */
  mount: string;
  /** Forces every write to the backing folder (like sync(1)). */
  sync(): Promise<void>;
  /** Pending metadata ops and unsynced data, as lazyfs counts them. */
  stats(): Promise<string>;
  /**
   * Makes the next `count` fsyncs of files whose path ends with `suffix` fail
   * with EIO the way Linux fails them: the unsynced pages still read back but
   * are never written, and each open descriptor hears of it once.
   */
  failFsync(suffix: string, count: number): Promise<void>;
  /** "failed-fsyncs N lost-bytes N": what the injected failures did. */
  faults(): Promise<string>;
  /** The power cut: drops every unsynced write and unmounts. Says what was dropped. */
  cut(): Promise<string>;
  /** Mounts again over what survived. */
  remount(): Promise<void>;
  /** Unmounts (if mounted) and removes everything. */
  dispose(): Promise<void>;
}

async function lazyfsBinary(): Promise<string> {
  if (!existsSync('/dev/fuse')) throw new Error('/dev/fuse is missing: load the fuse kernel module (modprobe fuse)');
  try {
    await exec('fusermount3', ['-V']);
  } catch {
    throw new Error('fusermount3 is missing: install Debian\u2019s fuse3 package (.ci/run does)');
  }
  try {
    const { stdout } = await exec('bash', [SCRIPT, 'path'], { timeout: 300_000 });
    return stdout.trim();
  } catch (err) {
    throw new Error(`cannot build lazyfs: ${(err as { stderr?: string }).stderr ?? String(err)}`);
  }
}

function isMounted(path: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === path);
}

export async function mountLazyDisk(): Promise<LazyDisk> {
  const bin = await lazyfsBinary();
  const dir = tempDir('slipgate-lazyfs-');
  // PostgreSQL runs as its own user and must reach its folder on the mount.
  chmodSync(dir.path, 0o755);
  const backing = join(dir.path, 'backing');
  const mount = join(dir.path, 'mnt');
  const control = join(dir.path, 'control.sock');
  mkdirSync(backing);
  mkdirSync(mount);
  let proc: ChildProcess | null = null;
  let exited: Promise<unknown[]> = Promise.resolve([]);

  const start = async () => {
    const child = spawn(bin, ['--backing', backing, '--mount', mount, '--control', control], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    exited = once(child, 'exit');
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => line === 'ready' && resolve());
      void exited.then(([code]) => reject(new Error(`lazyfs could not mount (exit ${String(code)}): ${stderr.trim()}`)));
    });
    proc = child;
  };

  const command = (cmd: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(control);
      let reply = '';
      socket.on('data', (d) => (reply += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(reply.trim()));
      socket.write(cmd + '\n');
    });

  const unmount = async () => {
    if (isMounted(mount)) await exec('fusermount3', ['-u', '-z', mount]);
  };

  await start();
  return {
    mount,
    async sync() {
      const reply = await command('sync');
      if (reply !== 'ok') throw new Error(`lazyfs sync: ${reply}`);
    },
    stats: () => command('stats'),
    async failFsync(suffix, count) {
      const reply = await command(`fail-fsync ${suffix} ${count}`);
      if (reply !== 'ok') throw new Error(`lazyfs fail-fsync: ${reply}`);
    },
    faults: () => command('faults'),
    async cut() {
      const reply = await command('cut');
      await exited;
      proc = null;
      await unmount();
      if (!reply.startsWith('cut ')) throw new Error(`lazyfs cut: ${reply}`);
      return reply.slice('cut '.length);
    },
    async remount() {
      if (proc) throw new Error('lazyfs is still mounted');
      await start();
    },
    async dispose() {
      if (proc) {
        proc.kill('SIGTERM');
        await exited;
        proc = null;
      }
      await unmount().catch(() => {});
      dir.remove();
    },
  };
}
