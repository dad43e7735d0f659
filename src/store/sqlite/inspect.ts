// What a SQLite file is: a slipgate database of which schema version, and
// whether its pages are whole. Used on backups before they are trusted.
import Database from 'better-sqlite3';
import { InputError } from '../../domain/errors.js';

/** max(schema_migrations.version), or null when the file has no such table (not slipgate's). */
export function schemaVersion(db: Database.Database): number | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return null;
  return (db.prepare('SELECT coalesce(max(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
}

/** PRAGMA integrity_check's findings; empty when the file is whole. */
export function integrityProblems(db: Database.Database): string[] {
  const rows = db.pragma('integrity_check') as { integrity_check: string }[];
  return rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
}

const REASONS: Record<string, string> = {
  SQLITE_FULL: 'the disk is full',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CORRUPT: 'the file is damaged (truncated or overwritten)',
  SQLITE_CANTOPEN: 'the file cannot be opened',
  SQLITE_READONLY: 'the file or its folder is read-only',
  SQLITE_IOERR: 'the disk reported an I/O error',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
};

/** A one-line InputError for the operator: what failed and why, from SQLite's or the OS's error code. */
export function describeSqliteFailure(err: unknown, what: string): Error {
  if (err instanceof InputError) return err;
  const code = (err as { code?: string }).code ?? '';
  const reason = REASONS[code] ?? Object.entries(REASONS).find(([prefix]) => code.startsWith(prefix))?.[1];
  const detail = err instanceof Error ? err.message : String(err);
  return new InputError(`${what}: ${reason ? `${reason} (${detail})` : detail}`, { cause: err });
}
