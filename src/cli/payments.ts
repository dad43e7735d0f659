// `slipgate payments …`: an account's payment requests (docs/payments.md)
// and its unique-amount setting.
import { Argument, type Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { bahtOf } from '../domain/payments/money.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../domain/payments/types.js';
import { bangkokTime, printTable } from './output.js';
import { positiveInt, printJson, withExistingStore } from './context.js';
import { loadConfig } from '../config.js';
import { checkoutBaseUrl, checkoutLinksMissing } from '../http/checkout/base-url.js';
import { checkoutLinks } from '../domain/payments/checkout-link.js';
import { parsePaymentRequestBody } from '../domain/payments/input.js';
import { PaymentRequestRefused } from '../domain/payments/service.js';
import { ResolveRefused } from '../domain/payments/resolve.js';

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

  payments
    .command('create <accountId>')
    .description('make a payment request for the account (as POST /api/v1/payment-requests) and print its checkout link')
    .requiredOption('--amount <baht>', 'what to ask for, in baht (250 or 250.50)')
    .requiredOption('--reference <order>', "the shop's order id")
    .option('--expires-in <minutes>', 'minutes until it expires (default 30)', positiveInt)
    .option('--receiver <id>', 'the PromptPay receiver (rcv_…); optional when the account has one')
    .option('--success-url <url>', 'where the checkout page sends the customer once paid')
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { amount: string; reference: string; expiresIn?: number; receiver?: string; successUrl?: string; json?: boolean }) => {
      const config = loadConfig();
      const base = checkoutBaseUrl(config);
      const links = checkoutLinks({ publicUrl: base, secretsKey: config.SECRETS_KEY });
      const input = parsePaymentRequestBody({
        amount: opts.amount,
        reference: opts.reference,
        ...(opts.expiresIn === undefined ? {} : { expiresInMinutes: opts.expiresIn }),
        ...(opts.receiver === undefined ? {} : { receiver: opts.receiver }),
        ...(opts.successUrl === undefined ? {} : { successUrl: opts.successUrl }),
      });
      if (!input.ok) throw new InputError(input.message.replace(/^(\w+)/, (name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`));
      return withExistingStore(async ({ store, payments: service }) => {
        if (!(await store.getAccount(accountId))) throw new InputError(`account ${accountId} not found`);
        let made;
        try {
          made = await service.create(accountId, input.input);
        } catch (err) {
          if (err instanceof PaymentRequestRefused) throw new InputError(err.message);
          throw err;
        }
        if (made.outcome === 'conflict') throw new InputError(`reference ${JSON.stringify(opts.reference)} was used before for another amount, receiver or expiry (${made.request.id})`);
        const p = made.request;
        const link = links.url(p.id);
        if (opts.json) return printJson({ ...p, checkoutUrl: link });
        console.log(`${made.outcome === 'created' ? 'Created' : 'Already made'} ${p.id}: ${bahtOf(p.amount).toFixed(2)} baht for ${p.reference}, ${p.status} until ${bangkokTime(p.expiresAt)} (Bangkok).`);
        console.log(link ? `Checkout link: ${link}` : `No checkout link: ${checkoutLinksMissing(base, config.SECRETS_KEY)}.`);
      });
    });

  payments
    .command('resolve <paymentRequestId>')
    .description('staff resolution: the verified slip of --verification paid this pending or expired request (no credit; one paid event; audited)')
    .requiredOption('--verification <id>', 'the verification (req_…) whose slip paid it, from the audit log')
    .option('--note <text>', 'why, for the admin event trail')
    .option('--force', "accept a slip paid to another receiver than the request's (check first: it may be fraud)")
    .option('--json', 'print JSON')
    .action((paymentRequestId: string, opts: { verification: string; note?: string; force?: boolean; json?: boolean }) =>
      withExistingStore(async ({ resolutions, actor }) => {
        let resolved;
        try {
          resolved = await resolutions.resolve({ paymentRequestId, verificationId: opts.verification, actor, note: opts.note ?? null, force: opts.force === true });
        } catch (err) {
          if (err instanceof ResolveRefused) throw new InputError(`${err.message} (${err.reason}); nothing changed`);
          throw err;
        }
        const p = resolved.request;
        if (opts.json) return printJson({ changed: resolved.changed, paymentRequest: p });
        const how = resolved.changed ? 'is now paid by' : 'was already paid by';
        console.log(`${p.id} (${p.reference}) ${how} verification ${p.paidBy?.verificationId ?? opts.verification}.`);
      }),
    );

  payments
    .command('checkout-secret <accountId>')
    .description("print the secret the account's shop checks the checkout page's return signature with (derived from SECRETS_KEY)")
    .action((accountId: string) =>
      withExistingStore(async ({ store }) => {
        if (!(await store.getAccount(accountId))) throw new InputError(`account ${accountId} not found`);
        const secret = checkoutLinks({ secretsKey: loadConfig().SECRETS_KEY }).accountSecret(accountId);
        if (!secret) throw new InputError('SECRETS_KEY is not set: the checkout secret is derived from it (docs/payments.md#checkout-page)');
        console.log(secret);
      }),
    );
}
