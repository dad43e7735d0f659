// `slipgate receivers …`: the receiving accounts a merchant account registers
// (domain/receivers.ts), and `accounts update --receiver-policy`.
import type { Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { RECEIVER_POLICIES, type Receiver } from '../domain/types.js';
import { printJson, withExistingStore } from './context.js';
import { bangkokTime, printTable } from './output.js';

interface AddOptions {
  bank?: string;
  account?: string;
  promptpay?: string;
  name: string;
  nameEn?: string;
  label?: string;
  reason?: string;
  json?: boolean;
}

export function registerReceiverCommands(program: Command): void {
  const receivers = program.command('receivers').description("manage the receiving accounts a merchant account's slips must pay (receiver policy)");

  receivers
    .command('add <accountId>')
    .description('register a bank account (--bank and --account) or a PromptPay target (--promptpay); prints the new receiver id')
    .option('--bank <code>', '3-digit bank code, e.g. 004 (KBANK)')
    .option('--account <number>', "account number of that bank's length (dashes and spaces allowed)")
    .option('--promptpay <id>', 'mobile number (0… or +66…), national or tax ID (13 digits) or e-wallet ID (15 digits)')
    .requiredOption('--name <name>', 'the name the bank prints for it (Thai or English)')
    .option('--name-en <name>', 'the English name too, when --name is the Thai one')
    .option('--label <text>', 'your own word for it: branch, till')
    .option('--reason <text>', 'why (kept in the admin events)')
    .option('--json', 'print the whole record as JSON')
    .action((accountId: string, opts: AddOptions) =>
      withExistingStore(async ({ admin, actor }) => {
        const receiver = await admin.addReceiver(
          actor,
          { accountId, bankCode: opts.bank, account: opts.account, promptPay: opts.promptpay, nameTh: opts.name, nameEn: opts.nameEn, label: opts.label },
          opts.reason,
        );
        if (opts.json) return printJson(receiver);
        console.log(receiver.id);
      }),
    );

  receivers
    .command('list <accountId>')
    .description("list an account's receivers, oldest first, and its receiver policy")
    .option('--json', 'print JSON: {"receiverPolicy","receivers"}')
    .action((accountId: string, opts: { json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        const account = await store.getAccount(accountId);
        if (!account) throw new InputError(`no account ${accountId}`);
        const list = await store.listReceivers(accountId);
        if (opts.json) return printJson({ receiverPolicy: account.receiverPolicy, receivers: list });
        console.log(`Receiver policy: ${account.receiverPolicy}`);
        if (list.length === 0) return console.log('No receivers.');
        printTable(list.map(row));
      }),
    );

  receivers
    .command('remove <receiverId>')
    .description('remove a receiver; the last active one of a `require` account cannot go')
    .option('--reason <text>', 'why (kept in the admin events)')
    .action((receiverId: string, opts: { reason?: string }) =>
      withExistingStore(async ({ admin, actor }) => {
        const r = await admin.removeReceiver(actor, receiverId, { reason: opts.reason });
        console.log(`Receiver ${r.id} (${describe(r)}) removed from ${r.accountId}. ${takesEffect()}`);
      }),
    );
}

/** `accounts update <accountId> --receiver-policy …`, on the accounts command. */
export function registerAccountUpdate(accounts: Command): void {
  accounts
    .command('update <accountId>')
    .description('change an account setting')
    .requiredOption('--receiver-policy <policy>', `what verifications do with the registered receivers: ${RECEIVER_POLICIES.join(', ')} (require needs an active receiver)`)
    .option('--reason <text>', 'why (kept in the admin events)')
    .option('--json', 'print JSON: {"accountId","receiverPolicy"}')
    .action((accountId: string, opts: { receiverPolicy: string; reason?: string; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        const account = await admin.setReceiverPolicy(actor, accountId, opts.receiverPolicy, opts.reason);
        if (opts.json) return printJson({ accountId, receiverPolicy: account.receiverPolicy });
        console.log(`Receiver policy of ${accountId} is now ${account.receiverPolicy}. ${takesEffect()}`);
      }),
    );
}

function takesEffect(): string {
  return 'Running servers notice within API_KEY_CACHE_TTL_MS (default 5 s).';
}

function describe(r: Receiver): string {
  return r.kind === 'bank' ? `bank ${r.bankCode} account ${r.number}` : `PromptPay ${r.proxyType} ${r.number}`;
}

function row(r: Receiver): Record<string, string> {
  return {
    id: r.id,
    receiver: describe(r),
    name: [r.nameTh, r.nameEn].filter((n) => n !== null).join(' / '),
    label: r.label ?? '',
    active: r.active ? 'yes' : 'no',
    'created (Bangkok)': bangkokTime(r.createdAt),
  };
}
