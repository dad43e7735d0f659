// `slipgate accounts …` and `slipgate keys …`.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { InputError } from '../domain/errors.js';
import { positiveInt, printJson, printPurge, withExistingStore, withStore } from './context.js';
import { bangkokTime, count, printTable } from './output.js';
import { registerAccountUpdate } from './receivers.js';

export function registerAccountCommands(program: Command): void {
  const accounts = program.command('accounts').description('manage customer accounts and credits');

  accounts
    .command('create')
    .description('create an account and its first API key (shown once)')
    .requiredOption('--name <name>', 'account name')
    .option('--credits <n>', 'initial credits', positiveInt, 0)
    .option('--json', 'print JSON: {"accountId","apiKey"}')
    .action((opts: { name: string; credits: number; json?: boolean }) =>
      withStore(async ({ admin, actor }) => {
        const { account, apiKey } = await admin.createAccount(actor, { name: opts.name, credits: opts.credits });
        if (opts.json) return printJson({ accountId: account.id, apiKey: apiKey.secret });
        console.log(`Account ${account.id} (${account.name}) created with ${count(account.credits, 'credit')}.`);
        console.log(`API key, shown only now, store it safely: ${apiKey.secret}`);
      }),
    );

  accounts
    .command('top-up <accountId>')
    .description('add credits to an account')
    .requiredOption('--credits <n>', 'credits to add', positiveInt)
    .requiredOption('--reason <text>', 'why (kept in the ledger)')
    .option('--idempotency-key <key>', 'repeat-safe key: the same key never adds credits twice (default: a new one, printed so a retry can reuse it)')
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { credits: number; reason: string; idempotencyKey?: string; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        // Every top-up carries a key, as through GraphQL: one the operator
        // did not choose is printed, so a run whose answer was lost can be
        // repeated with it and never adds the credits twice.
        const idempotencyKey = opts.idempotencyKey ?? `cli-${randomUUID()}`;
        const r = await admin.topUp(actor, { accountId, credits: opts.credits, reason: opts.reason, idempotencyKey });
        if (opts.json) return printJson({ accountId, credits: r.account.credits, ledgerEntryId: r.entry.id, created: r.created, idempotencyKey });
        console.log(`${r.created ? 'Added' : 'Already added (same idempotency key)'} ${count(r.entry.delta, 'credit')}; balance is now ${r.account.credits}.`);
        if (opts.idempotencyKey === undefined) console.log(`Idempotency key ${idempotencyKey}: repeat with --idempotency-key ${idempotencyKey} if unsure it went through.`);
      }),
    );

  accounts
    .command('credits-low <accountId> <threshold>')
    .description('send account.credits_low once when credits fall below <threshold> (a whole number), or stop with "off"')
    .option('--reason <text>', 'why (kept in the admin events)')
    .action((accountId: string, threshold: string, opts: { reason?: string }) => {
      if (threshold !== 'off' && !/^[1-9]\d{0,9}$/.test(threshold)) throw new InputError('<threshold> must be a whole number of credits from 1, or off');
      return withExistingStore(async ({ admin, actor }) => {
        const set = await admin.setCreditsLowAt(actor, accountId, threshold === 'off' ? null : Number(threshold), opts.reason ?? null);
        console.log(set === null ? `account.credits_low is off for ${accountId}.` : `account.credits_low fires for ${accountId} when its credits fall below ${set}.`);
      });
    });

  accounts
    .command('list')
    .description('list accounts, newest first')
    .option('--search <text>', 'name contains')
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((opts: { search?: string; limit: number; json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        const page = await store.listAccounts({ search: opts.search, limit: opts.limit });
        if (opts.json) return printJson(page.items);
        if (page.items.length === 0) return console.log('No accounts.');
        printTable(page.items.map((a) => ({ id: a.id, name: a.name, credits: a.credits, held: a.held, usage: a.usage, 'created (Bangkok)': bangkokTime(a.createdAt) })));
      }),
    );

  registerAccountUpdate(accounts);

  accounts
    .command('rename <accountId> <name>')
    .description('rename an account: the name staff read and the checkout page shows customers (1 to 200 characters)')
    .option('--reason <text>', 'why (kept in the admin events)')
    .option('--json', 'print JSON')
    .action((accountId: string, name: string, opts: { reason?: string; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        const account = await admin.renameAccount(actor, accountId, name, opts.reason);
        if (opts.json) return printJson({ accountId, name: account.name });
        console.log(`Account ${accountId} is now named ${account.name}.`);
      }),
    );

  accounts
    .command('delete <accountId>')
    .description('delete an account: its keys answer 1022 from now on; history is kept. Asks first at a terminal')
    .option('--yes', 'delete without asking (needed when not at a terminal)')
    .action((accountId: string, opts: { yes?: boolean }) =>
      withExistingStore(async ({ admin, actor, store }) => {
        const account = await store.getAccount(accountId);
        if (!account) throw new InputError(`no account ${accountId}`);
        if (account.deletedAt) return console.log(`Account ${accountId} (${account.name}) was already deleted at ${bangkokTime(account.deletedAt)} (Bangkok); nothing to do.`);
        if (!opts.yes && !(await confirm(`Delete account ${accountId} (${account.name}, ${count(account.credits, 'credit')} left)? Its keys stop working. [y/N] `, 'delete'))) {
          console.log('Not deleted.');
          return;
        }
        await admin.deleteAccount(actor, accountId);
        console.log(`Account ${accountId} (${account.name}) deleted; its keys answer 1022 from now on.`);
      }),
    );

  accounts
    .command('erase-personal-data <accountId>')
    .description("erase an account's personal data now (PDPA request): every verification and finished re-check redacted, failed requests deleted; credits, ledger and usage stay. Cannot be undone; asks first at a terminal")
    .option('--reason <text>', 'why, e.g. the request ticket (kept in the admin events)')
    .option('--yes', 'erase without asking (needed when not at a terminal)')
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { reason?: string; yes?: boolean; json?: boolean }) =>
      withExistingStore(async ({ admin, actor, store }) => {
        const account = await store.getAccount(accountId);
        if (!account) throw new InputError('account not found');
        if (!opts.yes && !(await confirm(`Erase the personal data of account ${accountId} (${account.name})? This cannot be undone. [y/N] `, 'erase'))) {
          console.log('Nothing erased.');
          return;
        }
        const r = await admin.erasePersonalData(actor, accountId, opts.reason);
        if (opts.json) return printJson({ accountId, redactedVerifications: r.redacted, deletedFailures: r.deleted, redactedRechecks: r.rechecks, purge: r.purge });
        console.log(`Erased the personal data of ${accountId}: ${count(r.redacted, 'verification')} redacted, ${count(r.deleted, 'failed request')} deleted.`);
        // A line of its own: the line above reads as it always did, for scripts that match it.
        console.log(`Also redacted ${count(r.rechecks, 'finished re-check')}.`);
        printPurge(r.purge);
      }),
    );

  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create <accountId>')
    .description('issue another API key for an account (shown once)')
    .option('--allow-ip <cidr>', 'only accept the key from this IPv4/IPv6 range (repeatable; without it: any address)', collect)
    .option('--json', 'print JSON: {"keyId","apiKey","allowedIps"}')
    .action((accountId: string, opts: { allowIp?: string[]; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        const issued = await admin.createApiKey(actor, accountId, null, opts.allowIp ?? []);
        if (opts.json) return printJson({ keyId: issued.key.id, apiKey: issued.secret, allowedIps: issued.key.allowedIps });
        console.log(`Key ${issued.key.id} created${describeRanges(issued.key.allowedIps)}. API key, shown only now: ${issued.secret}`);
      }),
    );

  keys
    .command('list <accountId>')
    .description("list an account's keys (prefix only)")
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { json?: boolean }) =>
      withExistingStore(async ({ store }) => {
        const list = (await store.listApiKeys(accountId)).map(({ hash: _hash, ...k }) => k);
        if (opts.json) return printJson(list);
        if (list.length === 0) return console.log('No keys.');
        printTable(
          list.map((k) => ({
            id: k.id,
            prefix: k.prefix,
            'allowed addresses': k.allowedIps.join(' ') || 'any',
            'created (Bangkok)': bangkokTime(k.createdAt),
            'last used': bangkokTime(k.lastUsedAt),
            revoked: bangkokTime(k.revokedAt),
          })),
        );
      }),
    );

  keys
    .command('revoke <keyId>')
    .description('revoke a key: it answers 1021; running servers notice within API_KEY_CACHE_TTL_MS (default 5 s)')
    .action((keyId: string) =>
      withExistingStore(async ({ admin, actor }) => {
        await admin.revokeApiKey(actor, keyId);
        console.log(`Key ${keyId} revoked. ${takesEffect()}`);
      }),
    );

  keys
    .command('allow-ip <keyId> [cidr...]')
    .description('replace the IP ranges a key is accepted from (--any: every address); running servers notice within API_KEY_CACHE_TTL_MS')
    .option('--any', 'remove the restriction')
    .option('--json', 'print JSON: {"keyId","allowedIps"}')
    .action((keyId: string, cidrs: string[], opts: { any?: boolean; json?: boolean }) => {
      if (Boolean(opts.any) === (cidrs.length > 0)) throw new InputError('give one or more CIDR ranges, or --any (not both)');
      return withExistingStore(async ({ admin, actor }) => {
        const key = await admin.setApiKeyAllowedIps(actor, keyId, cidrs);
        if (opts.json) return printJson({ keyId, allowedIps: key.allowedIps });
        console.log(`Key ${keyId} is now accepted from ${key.allowedIps.length === 0 ? 'any address' : key.allowedIps.join(', ')}. ${takesEffect()}`);
      });
    });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Running servers cache keys; a change made here reaches them when their copy expires. */
function takesEffect(): string {
  const ttl = loadConfig().API_KEY_CACHE_TTL_MS;
  return ttl === 0
    ? 'Running servers apply it at their next request.'
    : `Running servers apply it within ${ttl / 1000} s (API_KEY_CACHE_TTL_MS); a request before then is still answered the old way.`;
}

async function confirm(question: string, verb: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw new InputError(`not at a terminal: add --yes to ${verb} without asking`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function describeRanges(ranges: readonly string[]): string {
  return ranges.length === 0 ? '' : ` (accepted only from ${ranges.join(', ')})`;
}
