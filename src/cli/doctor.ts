// `slipgate doctor`: checks that every account's balance, holds, usage,
// ledger and audit records agree, and that no hold outlived HOLD_STALE_MS.
// Exits 1 on any discrepancy.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { reconcileAll } from '../domain/reconcile.js';
import { printJson, withExistingStore } from './context.js';
import { count } from './output.js';

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('reconcile balances, holds, usage, ledger and audit records of every account')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        const staleBefore = new Date(Date.now() - loadConfig().HOLD_STALE_MS);
        const results = await reconcileAll(store, { staleBefore });
        const bad = results.filter((r) => r.problems.length > 0);
        const holds = await store.listHolds();
        if (opts.json) printJson({ accounts: results.length, discrepancies: bad, openHolds: holds.length });
        else {
          console.log(`Checked ${count(results.length, 'account')}; ${count(holds.length, 'credit hold')} open (in flight or awaiting recovery).`);
          for (const r of bad) console.log(`DISCREPANCY ${r.accountId}: ${r.problems.join('; ')}`);
          if (bad.length === 0) console.log('All accounts reconcile.');
        }
        if (bad.length > 0) process.exitCode = 1;
      }),
    );
}
