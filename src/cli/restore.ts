// `slipgate restore --from FILE`: replaces the SQLite database with a backup,
// once the backup is checked and no server holds a live lease on the
// database; erasures recorded in the database it replaces are re-applied
// to the copy first (domain/erasure-register.ts).
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { reapplyErasures } from '../domain/personal-data/erasure-register.js';
import { InputError } from '../domain/errors.js';
import type { AdminEvent } from '../domain/types.js';
import { fsyncPath, removeWithSidecars } from '../files/durable-file.js';
import { refuseLiveDatabase } from '../files/live-database-guard.js';
import { openStore } from '../store/open.js';
import { lockLiveDatabase, type LiveDatabaseLock } from '../store/sqlite/live-lock.js';
import { compactStaged, placeNew, stageRestore } from '../store/sqlite/restore.js';
import { describeBooks, summarizeSqliteFile, type BooksSummary } from './books-summary.js';
import { printJson } from './context.js';
import { sqliteFileOf } from './engine-file.js';

interface RestoreOptions {
  from: string;
  force?: boolean;
  json?: boolean;
}

export function registerRestoreCommand(program: Command): void {
  program
    .command('restore')
    .description('replace the SQLite database with a backup (refused while a server is running on it)')
    .requiredOption('--from <file>', 'a file written by slipgate backup')
    .option('--force', "restore even if the backup's books do not reconcile")
    .option('--json', 'print JSON')
    .action(async (opts: RestoreOptions) => {
      const config = loadConfig();
      const target = sqliteFileOf(config.DATABASE_URL, 'restore');
      const source = resolve(opts.from);
      refuseLiveDatabase(source, target);
      const now = new Date();
      const staged = stageRestore(source, target, now);
      const keptAs = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      let books: BooksSummary;
      try {
        // Holds in a backup are expected (verifications in flight when it was taken): no age rule here.
        books = await summarizeSqliteFile(staged.temp);
        if (books.discrepancies.length > 0 && !opts.force) {
          const first = books.discrepancies[0]!;
          throw new InputError(`the backup's books do not reconcile (${books.discrepancies.length} accounts, e.g. ${first.accountId}: ${first.problems[0]}); pass --force to restore it anyway`);
        }
        // On disk before the live file is locked: the lock is held for the swap, not for a flush.
        fsyncPath(staged.temp);
      } catch (err) {
        removeWithSidecars(staged.temp);
        throw err;
      }
      let lock: LiveDatabaseLock | null = null;
      let erasures: AdminEvent[];
      try {
        lock = lockLiveDatabase(target, now);
        erasures = await carryOverErasures(lock?.erasures() ?? [], staged.temp);
        if (lock) lock.swapIn(staged.temp, keptAs);
        else placeNew(staged.temp, target);
      } catch (err) {
        removeWithSidecars(staged.temp);
        throw err;
      } finally {
        lock?.release();
      }
      const replaced = lock !== null;
      const migrated = staged.fromVersion < staged.toVersion;
      const reapplied = erasures.map((e) => ({ accountId: e.targetId, erasedAt: e.createdAt.toISOString(), eventId: e.id }));
      if (opts.json) {
        printJson({ file: target, from: source, keptAs: replaced ? keptAs : null, schemaVersion: staged.toVersion, migratedFrom: migrated ? staged.fromVersion : null, erasuresReapplied: reapplied, ...books });
        return;
      }
      console.log(`Restored ${target} from ${source}: ${describeBooks(books)}.`);
      console.log(migrated ? `Schema migrated from version ${staged.fromVersion} to ${staged.toVersion}.` : `Schema version ${staged.toVersion} (current).`);
      if (books.openHolds > 0) {
        console.log(`${books.openHolds} credit holds were open when the backup was taken; the first server to start releases them (credit back) or charges those with a recorded success.`);
      }
      for (const e of reapplied) console.log(`Erasure of ${e.accountId} from ${e.erasedAt} re-applied: it was made after the backup was taken.`);
      console.log(replaced ? `The previous database is kept as ${keptAs} (readable by its owner only).` : 'There was no database at that path before.');
    });
}

/** The live database's erasures the backup lacks, applied to the staged copy, which is then rewritten whole and flushed. */
async function carryOverErasures(erasures: AdminEvent[], temp: string): Promise<AdminEvent[]> {
  if (erasures.length === 0) return [];
  const store = await openStore(`sqlite:${temp}`);
  let applied: AdminEvent[];
  try {
    applied = await reapplyErasures(store, erasures);
  } finally {
    await store.close();
  }
  if (applied.length > 0) compactStaged(temp);
  return applied;
}
