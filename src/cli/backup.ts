// `slipgate backup --to FILE`: a consistent copy of the SQLite database while
// the server keeps serving, checked (integrity, reconciliation) before it
// takes its final name.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { publishStaged, stageOnlineBackup } from '../store/sqlite/online-backup.js';
import { removeWithSidecars } from '../files/durable-file.js';
import { describeBooks, summarizeSqliteFile } from './books-summary.js';
import { announceDatabase, printJson } from './context.js';
import { sqliteFileOf } from './engine-file.js';

interface BackupOptions {
  to: string;
  force?: boolean;
  json?: boolean;
}

export function registerBackupCommand(program: Command): void {
  program
    .command('backup')
    .description('copy the SQLite database while it serves (online backup), check the copy, then write it atomically')
    .requiredOption('--to <file>', 'the backup file to write (its folder must exist)')
    .option('--force', 'replace the file if it exists (it is replaced only once the new copy is checked)')
    .option('--json', 'print JSON')
    .action(async (opts: BackupOptions) => {
      const config = loadConfig();
      announceDatabase(config.DATABASE_URL);
      const source = sqliteFileOf(config.DATABASE_URL, 'backup');
      const target = resolve(opts.to);
      const staged = await stageOnlineBackup(source, target, opts.force === true);
      let books;
      try {
        // The doctor's rules: holds older than HOLD_STALE_MS are a problem in the live database too.
        // Read-only: the copy keeps the schema version it has.
        books = await summarizeSqliteFile(staged.temp, { staleBefore: new Date(Date.now() - config.HOLD_STALE_MS), readonly: true });
      } catch (err) {
        removeWithSidecars(staged.temp);
        throw err;
      }
      // A faithful copy of books that do not reconcile is still kept (the live file has the same problem), but it is no success.
      publishStaged(staged.temp, target);
      const keep = config.secretsKeyFile ? { secretsKeyFile: config.secretsKeyFile } : {};
      if (opts.json) printJson({ file: target, schemaVersion: staged.schemaVersion, failedRequests: staged.failedRequests, ...books, ...keep });
      else {
        // Not copied beside every backup: one more place the key lies. Without it a restore cannot open what it sealed.
        if (config.secretsKeyFile) console.log(`Keep ${config.secretsKeyFile} with the backups: it is this database's SECRETS_KEY (webhook and LINE secrets, checkout links), not in the copy.`);
        console.log(`Backed up ${source} to ${target} (schema version ${staged.schemaVersion}): ${describeBooks(books)}; ${staged.failedRequests} failed-request records.`);
        for (const d of books.discrepancies) console.log(`DISCREPANCY ${d.accountId}: ${d.problems.join('; ')}`);
        console.log(books.discrepancies.length === 0 ? 'Integrity check ok; all accounts reconcile.' : 'The copy is whole, but its books do not reconcile: run slipgate doctor on the live database.');
      }
      if (books.discrepancies.length > 0) process.exitCode = 1;
    });
}
