// Usage for charts: per account and Bangkok day.
import { usageDays, type UsageDay } from '../domain/accounts/usage.js';
import { builder } from './builder.js';
import { ErrorKindEnum } from './enums.js';
import { userInputError } from './errors.js';
import { STORE_READ_COST } from './pagination.js';
import { AccountRef } from './refs.js';

const DAY_MS = 86_400_000;
/** Without `from`: the last month. A range is at most about a year for one account, a quarter for all. */
const DEFAULT_USAGE_DAYS = 31;
const MAX_USAGE_DAYS = 400;
const MAX_ALL_ACCOUNTS_USAGE_DAYS = 92;

interface UsageArgs {
  accountId?: string | number | null;
  from?: Date | null;
  to?: Date | null;
}

function usageRange(args: UsageArgs): { from: Date; to: Date } {
  const to = args.to ?? new Date();
  const from = args.from ?? new Date(to.getTime() - DEFAULT_USAGE_DAYS * DAY_MS);
  return { from, to };
}

const maxDays = (args: UsageArgs) => (args.accountId == null ? MAX_ALL_ACCOUNTS_USAGE_DAYS : MAX_USAGE_DAYS);

/** One row per account and day: a day counts once for one account, ten times for all of them. */
function usageCost(args: UsageArgs) {
  const { from, to } = usageRange(args);
  // Clamped: a range over the cap is refused by the resolver, with a clearer error.
  const days = Math.min(maxDays(args), Math.max(1, Math.ceil((to.getTime() - from.getTime()) / DAY_MS)));
  return { field: 2 * STORE_READ_COST, multiplier: days * (args.accountId == null ? 10 : 1) };
}

const ErrorKindCount = builder.objectRef<UsageDay['failuresByKind'][number]>('ErrorKindCount').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: ErrorKindEnum }),
    count: t.exposeInt('count'),
  }),
});

const UsageDayRef = builder.objectRef<UsageDay>('UsageDay').implement({
  description: 'One account on one day (Asia/Bangkok).',
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    account: t.field({ type: AccountRef, nullable: true, resolve: (u, _args, ctx) => ctx.loaders.account.load(u.accountId) }),
    day: t.exposeString('day', { description: 'YYYY-MM-DD in Asia/Bangkok.' }),
    successes: t.exposeInt('successes'),
    failures: t.exposeInt('failures', { description: 'All failed requests (never charged).' }),
    // Already in memory, a few kinds at most.
    failuresByKind: t.field({ type: [ErrorKindCount], complexity: { field: 0, multiplier: 1 }, resolve: (u) => u.failuresByKind }),
    creditsSpent: t.exposeInt('creditsSpent', { description: 'One credit per success.' }),
  }),
});

builder.queryFields((t) => ({
  usage: t.field({
    type: [UsageDayRef],
    description: 'Successes, failures by kind and credits spent per account and Bangkok day, oldest day first.',
    args: {
      accountId: t.arg.id({ required: false }),
      from: t.arg({
        type: 'DateTime',
        required: false,
        description: `Inclusive, e.g. 2025-01-01T00:00:00+07:00; default ${DEFAULT_USAGE_DAYS} days before \`to\`. At most ${MAX_USAGE_DAYS} days before \`to\` (${MAX_ALL_ACCOUNTS_USAGE_DAYS} without accountId).`,
      }),
      to: t.arg({ type: 'DateTime', required: false, description: 'Exclusive; default now.' }),
    },
    complexity: usageCost,
    resolve: async (_root, args, ctx) => {
      if (args.from && args.to && args.to.getTime() <= args.from.getTime()) throw userInputError('to must be later than from');
      const { from, to } = usageRange(args);
      const max = maxDays(args);
      if (to.getTime() - from.getTime() > max * DAY_MS) {
        throw userInputError(`from and to may be at most ${max} days apart${args.accountId == null ? ' without accountId' : ''}`);
      }
      const rows = await ctx.store.usage({ accountId: args.accountId == null ? undefined : String(args.accountId), from, to });
      return usageDays(rows);
    },
  }),
}));
