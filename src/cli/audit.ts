// `slipgate audit list`: recent verifications and failures, newest first.
import type { Command } from 'commander';
import { positiveInt, printJson, withExistingStore } from './context.js';
import { bangkokTime, printTable } from './output.js';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('read the audit log');
  audit
    .command('list')
    .description('recent VerifyTransaction and RequestError records, newest first')
    .option('--account <id>', 'only this account')
    .option('--limit <n>', 'how many of each', positiveInt, 20)
    .option('--json', 'print JSON')
    .action((opts: { account?: string; limit: number; json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        const q = { accountId: opts.account, limit: opts.limit };
        const [ok, failed] = await Promise.all([store.listVerifyTransactions(q), store.listRequestErrors(q)]);
        const rows = [
          ...ok.items.map((r) => ({ type: 'VerifyTransaction' as const, ...r })),
          ...failed.items.map((r) => ({ type: 'RequestError' as const, ...r })),
        ]
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .slice(0, opts.limit);
        if (opts.json) return printJson(rows);
        if (rows.length === 0) return console.log('No audit records.');
        printTable(
          rows.map((r) => ({
            'time (Bangkok)': bangkokTime(r.createdAt),
            type: r.type,
            account: r.accountId ?? '',
            detail: r.type === 'VerifyTransaction' ? `${r.transactionId} ${r.amount.toFixed(2)} THB` : `${r.kind}: ${r.message}`,
            upstream: r.upstream ?? '',
          })),
        );
      }),
    );
}
