// Files that appear whole or not at all: written under a temporary name in
// the target's own folder (rename is atomic only within one file system),
// flushed, renamed, and the folder flushed so the new name survives a power
// cut too.
import { closeSync, fsyncSync, openSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { InputError } from './domain/errors.js';

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

/**
 * A target folder that exists, and a target that is not a folder; with
 * `overwrite` false, a target that does not exist yet.
 */
export function checkWritableTarget(target: string, overwrite: boolean): void {
  const folder = dirname(target);
  const folderStat = statOrNull(folder);
  if (!folderStat?.isDirectory()) throw new InputError(`${folder} is not an existing folder`);
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
