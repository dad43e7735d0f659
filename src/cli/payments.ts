// `slipgate payments …`: an account's payment requests (docs/payments.md)
// and its unique-amount setting.
import { Argument, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { bahtOf } from '../domain/payments/money.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../domain/payments/types.js';
import { bangkokTime, printTable } from './output.js';
import { positiveInt, printJson, withExistingStore } from './context.js';

export function registerPaymentCommands(program: Command): void {
  const payments = program.command('payments').description("an account's payment requests and its unique-amount setting (docs/payments.md)");

  payments
    .command('list <accountId>')
    .description("list the account's payment requests, newest first")
    .option('--status <status>', `only those with this status: ${PAYMENT_STATUSES.join(', ')}`)
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { status?: string; limit: number; json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        if (opts.status !== undefined && !(PAYMENT_STATUSES as readonly string[]).includes(opts.status)) {
          throw new InputError(`--status must be one of ${PAYMENT_STATUSES.join(', ')}`);
        }
        const page = await store.listPaymentRequests({ accountId, limit: opts.limit, ...(opts.status ? { status: opts.status as PaymentStatus } : {}) });
        if (opts.json) return printJson(page.items);
        if (page.items.length === 0) return console.log(`No payment requests for ${accountId}.`);
        printTable(
          page.items.map((p) => ({
            id: p.id,
            reference: p.reference,
            amount: bahtOf(p.amount).toFixed(2),
            status: p.status,
            'paid by': p.paidBy ? `${p.paidBy.sendingBank} ${p.paidBy.transactionId}` : '',
            'created (Bangkok)': bangkokTime(p.createdAt),
          })),
        );
      }),
    );

  payments
    .command('unique-amounts <accountId>')
    .description('give each pending request of a receiver its own amount (0.01–0.99 baht added), or stop')
    .addArgument(new Argument('<setting>').choices(['on', 'off']))
    .option('--reason <text>', 'why, for the admin event trail')
    .action((accountId: string, setting: 'on' | 'off', opts: { reason?: string }) =>
      withExistingStore(async ({ admin, actor }) => {
        await admin.setUniquePaymentAmounts(actor, accountId, setting === 'on', opts.reason ?? null);
        console.log(`Unique payment amounts of ${accountId} are now ${setting}.`);
      }),
    );
}
