// `slipgate doctor`: checks that every account's balance, holds, usage,
// ledger and audit records agree, and that no hold outlived HOLD_STALE_MS.
// Exits 1 on any discrepancy. With --go-live, instead: what still blocks
// going live on this server (go-live.ts), exit 1 while anything does.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { reconcileAll } from '../domain/accounts/reconcile.js';
import { positiveInt, printJson, withExistingStore } from './context.js';
import { DEFAULT_BACKUP_FOLDER, goLiveChecks, type GoLiveCheck } from './go-live.js';
import { count } from './output.js';
import { nonAtomicReason, nonAtomicServer } from '../store/non-atomic.js';

interface DoctorFlags {
  json?: boolean;
  goLive?: boolean;
  files?: string[];
  minFreeMb: number;
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('reconcile balances, holds, usage, ledger and audit records of every account; --go-live: what still blocks going live')
    .option('--go-live', 'check instead what blocks going live on this server, each with its fix (docs/deploy.md#go-live-check)')
    .option('--files <folders...>', `with --go-live: folders of backups and exports whose files must be 0600 (default: ${DEFAULT_BACKUP_FOLDER} where it exists)`)
    .option('--min-free-mb <mb>', 'with --go-live: free disk under the database below this blocks', positiveInt, 1024)
    .option('--json', 'print JSON')
    .action((opts: DoctorFlags) =>
      withExistingStore(async ({ store }) => {
        const config = loadConfig();
        if (opts.goLive) {
          const checks = await goLiveChecks(config, store, {
            folders: (opts.files ?? [DEFAULT_BACKUP_FOLDER]).map((f) => resolve(f)),
            minFreeMb: opts.minFreeMb,
            systemd: existsSync('/run/systemd/system'),
          });
          const blockers = checks.filter((c) => c.state === 'blocks');
          if (opts.json) printJson({ ready: blockers.length === 0, checks });
          else printGoLive(checks);
          if (blockers.length > 0) process.exitCode = 1;
          return;
        }
        const staleBefore = new Date(Date.now() - config.HOLD_STALE_MS);
        const results = await reconcileAll(store, { staleBefore });
        const bad = results.filter((r) => r.problems.length > 0);
        const holds = await store.listHolds();
        // Books that agree today prove nothing on a server that can overdraw tomorrow (store/non-atomic.ts).
        const server = await nonAtomicServer(store);
        const unsafe = server ? nonAtomicReason(server) : null;
        if (opts.json) printJson({ accounts: results.length, discrepancies: bad, openHolds: holds.length, ...(unsafe ? { nonAtomicDatabase: unsafe, allowed: config.MONGODB_ALLOW_NON_ATOMIC } : {}) });
        else {
          console.log(`Checked ${count(results.length, 'account')}; ${count(holds.length, 'credit hold')} open (in flight or awaiting recovery).`);
          for (const r of bad) console.log(`DISCREPANCY ${r.accountId}: ${r.problems.join('; ')}`);
          if (bad.length === 0) console.log('All accounts reconcile.');
          if (unsafe) console.log(`${config.MONGODB_ALLOW_NON_ATOMIC ? 'ALLOWED FOR A TEST' : 'NOT SAFE FOR MONEY'}: ${unsafe}`);
        }
        if (bad.length > 0 || (unsafe && !config.MONGODB_ALLOW_NON_ATOMIC)) process.exitCode = 1;
      }),
    );
}

const MARK = { ok: 'ok     ', blocks: 'BLOCKS ', 'not checked': '--     ' } as const;

/** One screen: a line a check, its fix under a blocker, the verdict last. */
function printGoLive(checks: GoLiveCheck[]): void {
  const width = Math.max(...checks.map((c) => c.check.length));
  for (const c of checks) {
    console.log(`${MARK[c.state]}${c.check.padEnd(width)}  ${c.detail}`);
    if (c.fix) console.log(`${' '.repeat(7 + width)}  fix: ${c.fix}`);
  }
  const blockers = checks.filter((c) => c.state === 'blocks').length;
  console.log(blockers === 0 ? 'Ready to go live: nothing blocks.' : `Not ready: ${count(blockers, 'check')} ${blockers === 1 ? 'blocks' : 'block'} going live.`);
}
