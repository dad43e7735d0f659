// Files that appear whole or not at all: written under a temporary name in
// the target's own folder (rename is atomic only within one file system),
// flushed, renamed, and the folder flushed so the new name survives a power
// cut too.
import { accessSync, closeSync, constants, fsyncSync, openSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { InputError } from '../domain/errors.js';
import { refuseLiveDatabase } from './live-database-guard.js';

/**
 * Backups, exports and the database kept by a restore hold names and
 * account numbers: readable by their owner only, whatever the umask.
 */
export const PRIVATE_FILE_MODE = 0o600;

/** `.<name>.<random>.partial` beside `target`; the leading dot keeps it out of plain listings. */
export function tempPathBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes a temporary file and the -wal/-shm/-journal files SQLite may have left beside it. */
export function removeWithSidecars(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** Creates `path` empty, readable by its owner only; fails if it exists. */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
}

export interface TargetRules {
  /** Replace a file that is already there. */
  overwrite: boolean;
  /** The live SQLite database (refuseLiveDatabase): null for the server engines. */
  database: string | null;
}

/**
 * Not the live database under any name; a target folder that exists and
 * this process may write, and a target that is not a folder; with
 * `overwrite` false, a target that does not exist yet.
 */
export function checkWritableTarget(target: string, { overwrite, database }: TargetRules): void {
  refuseLiveDatabase(target, database);
  const folder = dirname(target);
  const folderStat = statOrNull(folder);
  if (!folderStat?.isDirectory()) throw new InputError(`${folder} is not an existing folder`);
  try {
    // The file is written under a temporary name in this folder, then renamed: both need write and search permission on it.
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch {
    throw new InputError(`cannot write ${target}: this process (${whoAmI()}) lacks write permission on the folder ${folder}; run it as the folder's owner or choose another folder`);
  }
  const stat = statOrNull(target);
  if (stat?.isDirectory()) throw new InputError(`${target} is a folder; name the file to write`);
  if (stat && !overwrite) throw new InputError(`${target} already exists; choose a new name or pass --force to replace it`);
  if (stat && !stat.isFile()) throw new InputError(`${target} is not a regular file`);
}

export function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** `uid 998` — numbers, not names: a container user may have no passwd entry. */
export function whoAmI(): string {
  return process.getuid ? `uid ${process.getuid()}` : 'this user';
}
