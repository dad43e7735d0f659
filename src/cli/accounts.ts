// `slipgate accounts …` and `slipgate keys …`.
import type { Command } from 'commander';
import { InputError } from '../domain/errors.js';
import { positiveInt, printJson, withExistingStore, withStore } from './context.js';

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
        console.log(`Account ${account.id} (${account.name}) created with ${account.credits} credits.`);
        console.log(`API key, shown only now, store it safely: ${apiKey.secret}`);
      }),
    );

  accounts
    .command('top-up <accountId>')
    .description('add credits to an account')
    .requiredOption('--credits <n>', 'credits to add', positiveInt)
    .requiredOption('--reason <text>', 'why (kept in the ledger)')
    .option('--idempotency-key <key>', 'repeat-safe key: the same key never adds credits twice')
    .option('--json', 'print JSON')
    .action((accountId: string, opts: { credits: number; reason: string; idempotencyKey?: string; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        const r = await admin.topUp(actor, { accountId, credits: opts.credits, reason: opts.reason, idempotencyKey: opts.idempotencyKey ?? null });
        if (opts.json) return printJson({ accountId, credits: r.account.credits, ledgerEntryId: r.entry.id, created: r.created });
        console.log(`${r.created ? 'Added' : 'Already added (same idempotency key)'} ${r.entry.delta} credits; balance is now ${r.account.credits}.`);
      }),
    );

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
        console.table(page.items.map((a) => ({ id: a.id, name: a.name, credits: a.credits, held: a.held, usage: a.usage, created: a.createdAt.toISOString() })));
      }),
    );

  accounts
    .command('delete <accountId>')
    .description('delete an account: its keys answer 1022 from now on; history is kept')
    .action((accountId: string) =>
      withExistingStore(async ({ admin, actor }) => {
        await admin.deleteAccount(actor, accountId);
        console.log(`Account ${accountId} deleted.`);
      }),
    );

  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create <accountId>')
    .description('issue another API key for an account (shown once)')
    .option('--allow-ip <cidr>', 'only accept the key from this IPv4/IPv6 range (repeatable; default: any address)', collect, [])
    .option('--json', 'print JSON: {"keyId","apiKey","allowedIps"}')
    .action((accountId: string, opts: { allowIp: string[]; json?: boolean }) =>
      withExistingStore(async ({ admin, actor }) => {
        const issued = await admin.createApiKey(actor, accountId, null, opts.allowIp);
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
        console.table(list.map((k) => ({ id: k.id, prefix: k.prefix, allowedIps: k.allowedIps.join(' ') || 'any', created: k.createdAt.toISOString(), lastUsed: k.lastUsedAt?.toISOString() ?? '', revoked: k.revokedAt?.toISOString() ?? '' })));
      }),
    );

  keys
    .command('revoke <keyId>')
    .description('revoke a key: it answers 1021; running servers notice within API_KEY_CACHE_TTL_MS (default 5 s)')
    .action((keyId: string) =>
      withExistingStore(async ({ admin, actor }) => {
        await admin.revokeApiKey(actor, keyId);
        console.log(`Key ${keyId} revoked.`);
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
        console.log(`Key ${keyId} is now accepted from ${key.allowedIps.length === 0 ? 'any address' : key.allowedIps.join(', ')}.`);
      });
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function describeRanges(ranges: readonly string[]): string {
  return ranges.length === 0 ? '' : ` (accepted only from ${ranges.join(', ')})`;
}
