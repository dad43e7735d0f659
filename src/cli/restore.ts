// `slipgate restore --from FILE`: replaces the SQLite database with a backup,
// once the backup is checked and no server holds a live lease on the database.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { InputError } from '../domain/errors.js';
import { removeWithSidecars } from '../durable-file.js';
import { quiesceLiveDatabase, stageRestore, swapIn } from '../store/sqlite/restore.js';
import { describeBooks, summarizeSqliteFile } from './books-summary.js';
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
      if (source === target) throw new InputError('the backup is the live database itself');
      const now = new Date();
      const staged = stageRestore(source, target, now);
      const keptAs = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      let books;
      try {
        // Holds in a backup are expected (verifications in flight when it was taken): no age rule here.
        books = await summarizeSqliteFile(staged.temp);
        if (books.discrepancies.length > 0 && !opts.force) {
          const first = books.discrepancies[0]!;
          throw new InputError(`the backup's books do not reconcile (${books.discrepancies.length} accounts, e.g. ${first.accountId}: ${first.problems[0]}); pass --force to restore it anyway`);
        }
        quiesceLiveDatabase(target, now);
      } catch (err) {
        removeWithSidecars(staged.temp);
        throw err;
      }
      const replaced = swapIn(staged.temp, target, keptAs);
      const migrated = staged.fromVersion < staged.toVersion;
      if (opts.json) {
        printJson({ file: target, from: source, keptAs: replaced ? keptAs : null, schemaVersion: staged.toVersion, migratedFrom: migrated ? staged.fromVersion : null, ...books });
        return;
      }
      console.log(`Restored ${target} from ${source}: ${describeBooks(books)}.`);
      console.log(migrated ? `Schema migrated from version ${staged.fromVersion} to ${staged.toVersion}.` : `Schema version ${staged.toVersion} (current).`);
      if (books.openHolds > 0) {
        console.log(`${books.openHolds} credit holds were open when the backup was taken; the first server to start releases them (credit back) or charges those with a recorded success.`);
      }
      console.log(replaced ? `The previous database is kept as ${keptAs}.` : 'There was no database at that path before.');
    });
}
