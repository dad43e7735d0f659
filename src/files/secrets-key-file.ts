// The SECRETS_KEY a first start makes when none is set and the database is
// a SQLite file: 32 random bytes, hex, in `secrets.key` beside the database,
// readable by its owner only. Made once (whole or not at all: written under a
// temporary name, then linked, which fails if another process made it
// first); read from then on by `serve` and every command. A copy of the data
// folder carries it; `doctor --go-live` asks for a credential instead.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fsyncPath, PRIVATE_FILE_MODE, tempPathBeside } from './durable-file.js';
import { sqlitePath } from '../store/database-url.js';

const SECRETS_KEY_FILE_NAME = 'secrets.key';

/** Where the key of this database is kept; null: not a SQLite file (the server engines, :memory:). */
export function secretsKeyFileOf(databaseUrl: string): string | null {
  const database = sqlitePath(databaseUrl);
  if (database === null || database === ':memory:') return null;
  return join(dirname(resolve(database)), SECRETS_KEY_FILE_NAME);
}

/** The key in `path`; null when there is none. A file that holds anything but 64 hex characters is refused. */
export function readSecretsKeyFile(path: string): Buffer<ArrayBuffer> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`${path} does not hold a SECRETS_KEY (64 hex characters); restore it from a backup, or remove it only if nothing was sealed with it`);
  return Buffer.from(text, 'hex');
}

/** A new SECRETS_KEY: 32 random bytes. */
export function newSecretsKey(): Buffer<ArrayBuffer> {
  return randomBytes(32) as Buffer<ArrayBuffer>;
}

/** The key in `path`, `key` written there now if there is none (its folder too, 0700). */
export function makeSecretsKeyFile(path: string, key: Buffer = newSecretsKey()): Buffer<ArrayBuffer> {
  const existing = readSecretsKeyFile(path);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = tempPathBeside(path);
  const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, `${key.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    fsyncPath(dirname(path));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Another process made it first: its key is the one.
    if (code !== 'EEXIST' && !NO_HARD_LINKS.has(code ?? '')) throw err;
    if (code !== 'EEXIST') return createInPlace(path, key);
  } finally {
    rmSync(temp, { force: true });
  }
  return readSecretsKeyFile(path)!;
}

/** What link() says on a file system without hard links (FUSE ones, some network and FAT mounts). */
const NO_HARD_LINKS = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EPERM', 'ENOSYS']);

/**
 * Without hard links: created exclusively under its own name and written
 * there. A process that loses the race reads the winner's key once it is
 * whole (64 hex characters), waiting a moment for the write.
 */
function createInPlace(path: string, key: Buffer): Buffer<ArrayBuffer> {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return keyOnceWhole(path);
  }
  try {
    writeSync(fd, `${key.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncPath(dirname(path));
  return readSecretsKeyFile(path)!;
}

function keyOnceWhole(path: string): Buffer<ArrayBuffer> {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; ; tries++) {
    try {
      const key = readSecretsKeyFile(path);
      if (key) return key;
    } catch (err) {
      if (tries >= 100) throw err;
    }
    Atomics.wait(pause, 0, 0, 20);
  }
}
