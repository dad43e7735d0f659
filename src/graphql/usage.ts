// Usage for charts: per account and Bangkok day.
import { usageDays, type UsageDay } from '../domain/usage.js';
import { builder } from './builder.js';
import { ErrorKindEnum } from './enums.js';
import { userInputError } from './errors.js';
import { AccountRef } from './refs.js';

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
    failuresByKind: t.field({ type: [ErrorKindCount], resolve: (u) => u.failuresByKind }),
    creditsSpent: t.exposeInt('creditsSpent', { description: 'One credit per success.' }),
  }),
});

builder.queryFields((t) => ({
  usage: t.field({
    type: [UsageDayRef],
    description: 'Successes, failures by kind and credits spent per account and Bangkok day, oldest day first.',
    args: {
      accountId: t.arg.id({ required: false }),
      from: t.arg({ type: 'DateTime', required: false, description: 'Inclusive, e.g. 2025-01-01T00:00:00+07:00.' }),
      to: t.arg({ type: 'DateTime', required: false, description: 'Exclusive.' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.from && args.to && args.to.getTime() <= args.from.getTime()) throw userInputError('to must be later than from');
      const rows = await ctx.store.usage({
        accountId: args.accountId == null ? undefined : String(args.accountId),
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      });
      return usageDays(rows);
    },
  }),
}));
