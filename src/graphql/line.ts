// LINE channels of an account (docs/line.md): support staff connect and
// disconnect them. The channel secret and access token go in and never come
// out: every answer shows them masked. The rules are in domain/line (shared
// with the CLI).
import { LINE_LANGUAGES, lineChannelView, type LineChannelView, type LineGroup, type LineLanguage, type LineStaffTarget } from '../domain/line/types.js';
import { builder } from './builder.js';
import { STORE_READ_COST } from './pagination.js';
import { AccountRef } from './refs.js';

const LineLanguageEnum = builder.enumType('LineLanguage', {
  description: 'The language of the replies in the chat: TH (Thai) or EN (English).',
  values: Object.fromEntries(LINE_LANGUAGES.map((l) => [l.toUpperCase(), { value: l }])) as Record<string, { value: LineLanguage }>,
});

const LineStaffTargetRef = builder.objectRef<LineStaffTarget>('LineStaffTarget').implement({
  description: 'A LINE user, group or room pushed the slips of the channel that need a person, in batches (docs/line.md#staff-notifications).',
  fields: (t) => ({
    targetId: t.exposeString('targetId', { description: 'A LINE user id (U…), group id (C…) or room id (R…).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const LineGroupRef = builder.objectRef<LineGroup>('LineGroup').implement({
  description: "A group or room the channel's bot was added to (LINE's join event): a candidate staff target.",
  fields: (t) => ({
    groupId: t.exposeString('groupId'),
    kind: t.exposeString('kind', { description: 'group or room.' }),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
    leftAt: t.expose('leftAt', { type: 'DateTime', nullable: true, description: 'When the bot left or was removed; null while it is in.' }),
  }),
});

const LineChannelRef = builder.objectRef<LineChannelView>('LineChannel').implement({
  description: 'A LINE Official Account channel connected to an account: slips its customers send in chat are verified on the account and answered there.',
  fields: (t) => ({
    channelId: t.exposeID('channelId', { description: "LINE's channel id; the webhook URL is <public URL>/line/webhook/<channelId>." }),
    accountId: t.exposeID('accountId'),
    lang: t.expose('lang', { type: LineLanguageEnum }),
    checks: t.exposeBoolean('checks', { description: "Whether the duplicate check and the account's reported receiver verdict decide the answer." }),
    matchPaymentRequests: t.exposeBoolean('matchPaymentRequests', { description: 'Whether a slip sent in the chat pays the pending payment request of its receiver and amount (docs/line.md#payment-requests).' }),
    hints: t.exposeBoolean('hints', { description: 'Whether chat that is not a slip (text, stickers, pictures without a slip QR) is answered with a hint; false (the default): no bot message.' }),
    credentials: t.string({
      description: 'The channel secret and access token, always masked: set, and never readable again (no field of this API reads them).',
      resolve: (c) => `${c.secret} / ${c.accessToken}`,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    staffTargets: t.field({
      type: [LineStaffTargetRef],
      description: 'Who is pushed the slips that need a person, oldest first.',
      complexity: { field: STORE_READ_COST, multiplier: 10 },
      resolve: (c, _args, ctx) => ctx.store.listLineStaffTargets(c.channelId),
    }),
    groups: t.field({
      type: [LineGroupRef],
      description: 'The groups and rooms the bot was added to, left ones included.',
      complexity: { field: STORE_READ_COST, multiplier: 10 },
      resolve: (c, _args, ctx) => ctx.store.listLineGroups(c.channelId),
    }),
  }),
});

builder.objectFields(AccountRef, (t) => ({
  lineChannels: t.field({
    type: [LineChannelRef],
    description: 'Connected LINE channels, oldest first (secrets masked).',
    complexity: { field: STORE_READ_COST, multiplier: 10 },
    resolve: async (account, _args, ctx) => (await ctx.store.listLineChannels(account.id)).map(lineChannelView),
  }),
}));

const reason = builder.args((t) => ({ reason: t.string({ required: false, description: 'Why (kept in the admin events).' }) }));

builder.mutationFields((t) => ({
  connectLineChannel: t.field({
    type: LineChannelRef,
    authScopes: { support: true },
    description:
      'Connects a LINE channel to an account. The secret and token are sealed with SECRETS_KEY (refused when it is not set) and never returned. ' +
      'lang: default TH; checks: default true. Role: SUPPORT or ADMIN.',
    args: {
      accountId: t.arg.id({ required: true }),
      channelId: t.arg.string({ required: true }),
      channelSecret: t.arg.string({ required: true }),
      accessToken: t.arg.string({ required: true }),
      lang: t.arg({ type: LineLanguageEnum, required: false }),
      checks: t.arg.boolean({ required: false }),
      matchPaymentRequests: t.arg.boolean({ required: false }),
      hints: t.arg.boolean({ required: false, description: 'Answer chat that is not a slip with a hint; default false (quiet).' }),
      ...reason,
    },
    resolve: (_root, args, ctx) =>
      ctx.lineChannels.connect(ctx.actor, String(args.accountId), {
        channelId: args.channelId,
        channelSecret: args.channelSecret,
        accessToken: args.accessToken,
        lang: args.lang ?? null,
        checks: args.checks ?? null,
        matchPaymentRequests: args.matchPaymentRequests ?? null,
        hints: args.hints ?? null,
        reason: args.reason,
      }),
  }),
  setLineChannelHints: t.field({
    type: LineChannelRef,
    authScopes: { support: true },
    description: 'Turns the hint for chat that is not a slip on or off (docs/line.md#quiet-by-default). Role: SUPPORT or ADMIN.',
    args: { channelId: t.arg.string({ required: true }), hints: t.arg.boolean({ required: true }), ...reason },
    resolve: (_root, args, ctx) => ctx.lineChannels.setHints(ctx.actor, args.channelId, args.hints, args.reason),
  }),
  addLineStaffTarget: t.field({
    type: LineStaffTargetRef,
    authScopes: { support: true },
    description: 'Adds a staff target to a channel: a LINE user (U…), group (C…) or room (R…) id. Role: SUPPORT or ADMIN.',
    args: { channelId: t.arg.string({ required: true }), targetId: t.arg.string({ required: true }), ...reason },
    resolve: (_root, args, ctx) => ctx.lineChannels.addStaffTarget(ctx.actor, args.channelId, args.targetId, args.reason),
  }),
  removeLineStaffTarget: t.field({
    type: LineChannelRef,
    authScopes: { support: true },
    description: 'Removes a staff target of a channel; answers the channel. Role: SUPPORT or ADMIN.',
    args: { channelId: t.arg.string({ required: true }), targetId: t.arg.string({ required: true }), ...reason },
    resolve: (_root, args, ctx) => ctx.lineChannels.removeStaffTarget(ctx.actor, args.channelId, args.targetId, args.reason),
  }),
  disconnectLineChannel: t.field({
    type: LineChannelRef,
    authScopes: { support: true },
    description: 'Disconnects a channel: its webhook answers 404 and its sealed secret and token are deleted. Role: SUPPORT or ADMIN.',
    args: { channelId: t.arg.string({ required: true }), ...reason },
    resolve: (_root, args, ctx) => ctx.lineChannels.disconnect(ctx.actor, args.channelId, args.reason),
  }),
}));
