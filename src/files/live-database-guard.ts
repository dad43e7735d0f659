// No command writes over the live database. A backup, an export or a
// restore source named like the database under another name (a symlink,
// `./`, a path relative to another folder, a hard link) would replace the
// file a running server writes through its own descriptor and WAL, and the
// next start finds it malformed. One check, here, for every command that
// writes or reads a file the operator names.
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../domain/errors.js';

/** The files SQLite keeps for one database: the file itself and its journals. */
const SIDECARS = ['', '-wal', '-shm', '-journal'];

/** Symlink hops followed before giving up (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * Throws InputError naming both paths when `path` is the SQLite database
 * `database` or one of its -wal/-shm/-journal files: the same file (device
 * and inode) or the same real path, symlinks resolved, also for a file that
 * does not exist yet. `database` null or ':memory:': nothing to protect.
 */
export function refuseLiveDatabase(path: string, database: string | null): void {
  if (database === null || database === ':memory:') return;
  const clash = liveFileAt(resolve(path), resolve(database));
  if (clash !== null) throw new InputError(`refusing ${resolve(path)}: it is the live database file ${clash}; choose a file outside the database's own`);
}

function liveFileAt(path: string, database: string): string | null {
  const bases = [...new Set([database, realName(database)])];
  const target = { name: realName(path), id: identity(path) };
  for (const base of bases) {
    for (const suffix of SIDECARS) {
      const file = `${base}${suffix}`;
      const id = identity(file);
      if (realName(file) === target.name || (id !== null && target.id !== null && id.dev === target.id.dev && id.ino === target.id.ino)) return `${database}${suffix}`;
    }
  }
  return null;
}

/** The real path `path` names, symlinks resolved; for a file not there yet, its folder's real path and its name. */
function realName(path: string, hops = 0): string {
  let folder: string;
  try {
    folder = realpathSync(dirname(path));
  } catch {
    folder = dirname(path);
  }
  const full = join(folder, basename(path));
  let link = false;
  try {
    link = lstatSync(full).isSymbolicLink();
  } catch {
    // not there yet
  }
  return link && hops < MAX_LINKS ? realName(resolve(folder, readlinkSync(full)), hops + 1) : full;
}

function identity(path: string): { dev: bigint; ino: bigint } | null {
  try {
    const s = statSync(path, { bigint: true });
    return { dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}
