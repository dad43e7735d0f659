// `slipgate retention run`: the retention pass by hand (the server runs it by
// itself every RETENTION_INTERVAL_MINUTES), e.g. to preview it (--dry-run)
// or to apply a shorter period once.
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../config.js';
import { InputError } from '../domain/errors.js';
import { printJson, printPurge, withExistingStore } from './context.js';
import { bangkokTime, count } from './output.js';

export function registerRetentionCommands(program: Command): void {
  const retention = program.command('retention').description('remove the personal data of old records (PDPA retention)');
  retention
    .command('run')
    .description('redact verifications and finished re-checks and delete failed requests older than the period (default RETENTION_DAYS)')
    .option('--older-than <days>', 'the period in whole days, 1 or more (default: RETENTION_DAYS)', retentionDays)
    .option('--dry-run', 'only count what would be redacted and deleted; change nothing')
    .option('--json', 'print JSON')
    .action((opts: { olderThan?: number; dryRun?: boolean; json?: boolean }) => {
      const days = opts.olderThan ?? loadConfig().RETENTION_DAYS;
      if (days === 0) throw new InputError('retention is off (RETENTION_DAYS is 0 or "off"): pass --older-than <days> to run it anyway');
      return withExistingStore(async ({ admin, actor }) => {
        const r = await admin.runRetention(actor, days, { dryRun: opts.dryRun });
        const summary = {
          olderThanDays: days,
          createdBefore: r.createdBefore.toISOString(),
          dryRun: r.dryRun,
          redactedVerifications: r.redacted,
          deletedFailures: r.deleted,
          redactedRechecks: r.rechecks,
          ...(r.purge ? { purge: r.purge } : {}),
        };
        if (opts.json) return printJson(summary);
        // Bangkok time, like every listing; --json keeps the ISO instant.
        const before = `created before ${bangkokTime(r.createdBefore)} Bangkok time (${days} days)`;
        if (r.dryRun) console.log(`Dry run, nothing changed: would redact ${r.redacted} verifications and delete ${r.deleted} failed requests ${before}.`);
        else console.log(`Redacted ${r.redacted} verifications and deleted ${r.deleted} failed requests ${before}.`);
        // A line of its own: the line above reads as it always did, for scripts that match it.
        console.log(r.dryRun ? `Would also redact ${count(r.rechecks, 'finished re-check')}.` : `Also redacted ${count(r.rechecks, 'finished re-check')}.`);
        printPurge(r.purge);
      });
    });
}

/** A period in whole days; 0 is refused here (it would strip records being written right now). */
function retentionDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(days) || days < 1 || days > 36_500) {
    throw new InvalidArgumentError(`must be a whole number of days from 1 to 36500, got "${value}"`);
  }
  return days;
}
