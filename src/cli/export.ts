// `slipgate audit export`: verifications and failures as CSV or JSON lines,
// streamed page by page to a file or stdout, with backpressure (a slow disk
// or pipe pauses the reading instead of filling memory).
import { Option, type Command } from 'commander';
import { createWriteStream, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkExportFilter, exportLines, exportRows, parseTimeBound, type ExportFilter, type ExportRecords } from '../domain/admin/audit-export.js';
import { loadConfig } from '../config.js';
import { checkWritableTarget, fsyncPath, PRIVATE_FILE_MODE, removeWithSidecars, tempPathBeside } from '../files/durable-file.js';
import { sqlitePath } from '../store/database-url.js';
import { withExistingStore } from './context.js';

interface ExportOptions {
  account?: string;
  from?: string;
  to?: string;
  kind?: 'verified' | 'failed';
  format: 'csv' | 'jsonl';
  out?: string;
  force?: boolean;
}

export function registerExportCommand(program: Command): void {
  // A subcommand of `audit` (src/cli/audit.ts), registered after it.
  const audit = program.commands.find((c) => c.name() === 'audit') ?? program.command('audit');
  audit
    .command('export')
    .description('stream verifications and failures as CSV (UTF-8 with BOM) or JSON lines, newest first')
    .option('--account <id>', 'only this account')
    .option('--from <time>', 'from this time, inclusive: 2026-11-01 (a Bangkok day), 2026-11-01T09:30 (Bangkok) or ISO 8601 with offset')
    .option('--to <time>', 'up to this time, exclusive; a day (2026-11-30) includes that whole day')
    .addOption(new Option('--kind <kind>', 'only successful verifications or only failures (default both)').choices(['verified', 'failed']))
    .addOption(new Option('--format <format>', 'output format').choices(['csv', 'jsonl']).default('csv'))
    .option('--out <file>', 'write to this file (written whole or not at all) instead of stdout')
    .option('--force', 'replace --out if it exists')
    .action((opts: ExportOptions) => {
      // Checked before the store opens: the live database under another name is refused with nothing touched.
      const target = opts.out === undefined ? null : resolve(opts.out);
      if (target !== null) checkWritableTarget(target, { overwrite: opts.force === true, database: sqlitePath(loadConfig().DATABASE_URL) });
      return withExistingStore(async ({ store }) => {
        const filter: ExportFilter = {
          accountId: opts.account,
          from: opts.from === undefined ? undefined : parseTimeBound(opts.from, 'from'),
          to: opts.to === undefined ? undefined : parseTimeBound(opts.to, 'to'),
        };
        await checkExportFilter(store, filter);
        const records: ExportRecords = opts.kind ?? 'all';
        const lines = Readable.from(exportLines(exportRows(store, filter, records), opts.format));
        if (target === null) return pipeline(lines, process.stdout);
        const temp = tempPathBeside(target);
        try {
          await pipeline(lines, createWriteStream(temp, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
          fsyncPath(temp);
          renameSync(temp, target);
        } catch (err) {
          removeWithSidecars(temp);
          throw err;
        }
      });
    });
}
