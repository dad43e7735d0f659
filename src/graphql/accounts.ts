// Accounts, their API keys and credit ledger: queries and the mutations that
// move money. Resolvers only translate; the rules are in AdminActions /
// AccountService (shared with the CLI).
import { ActorRef, describeActor } from './actor.js';
import type { IssuedKey } from '../domain/accounts/operations.js';
import type { Account } from '../domain/types.js';
import type { LedgerResult } from '../domain/ports/store.js';
import { builder } from './builder.js';
import { notFoundError } from './errors.js';
import { ActivityUnion, recentActivity } from './audit.js';
import { LedgerKindEnum } from './enums.js';
import { connection, pageArgs, pagedCost, pageSize, STORE_READ_COST, withCursor } from './pagination.js';
import { AccountRef, AdminEventRef, ApiKeyRef, IssuedApiKeyRef, LedgerEntryRef } from './refs.js';

AccountRef.implement({
  description: 'A customer account. Deleted accounts stay readable (deletedAt set) for audit.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    credits: t.exposeInt('credits', { description: 'Spendable balance; credits held by in-flight verifications are already taken out.' }),
    heldCredits: t.exposeInt('held', { description: 'Credits held by verifications in flight right now.' }),
    usage: t.exposeInt('usage', { description: 'Successful (charged) verifications, all time.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    keys: t.field({
      type: [ApiKeyRef],
      description: 'API keys, newest first. Only the visible prefix; the whole key is never stored.',
      complexity: { field: STORE_READ_COST, multiplier: 10 },
      resolve: (account, _args, ctx) => ctx.store.listApiKeys(account.id),
    }),
    ledger: t.field({
      type: [LedgerEntryRef],
      description: 'Credit changes made by people (initial credits, top-ups, adjustments), newest first.',
      args: { first: pageArgs.first },
      complexity: pagedCost(),
      resolve: (account, args, ctx) => ctx.store.listLedger(account.id, pageSize(args.first)),
    }),
    recentActivity: t.field({
      type: [ActivityUnion],
      description: 'Verifications and failed requests of this account, newest first.',
      args: { first: pageArgs.first },
      complexity: pagedCost(2),
      resolve: (account, args, ctx) => recentActivity(ctx, account.id, pageSize(args.first)),
    }),
    adminEvents: t.field({
      type: [AdminEventRef],
      description: 'What admins did to this account, newest first.',
      args: { first: pageArgs.first },
      complexity: pagedCost(),
      resolve: async (account, args, ctx) => (await ctx.store.listAdminEvents({ targetId: account.id, limit: pageSize(args.first) })).items,
    }),
  }),
});

ApiKeyRef.implement({
  description: 'An API key, by its visible prefix only.',
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, e.g. slip_Ab12Cd34.' }),
    allowedIps: t.exposeStringList('allowedIps', { description: 'CIDR ranges the key is accepted from (others get 1024); empty: any address.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'Updated at most once a minute.' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

IssuedApiKeyRef.implement({
  description: 'A newly issued API key. `secret` appears only in this mutation response and can never be read again.',
  fields: (t) => ({
    key: t.field({ type: ApiKeyRef, resolve: (issued) => issued.key }),
    secret: t.exposeString('secret', { description: 'The whole API key (slip_…): give it to the customer now.' }),
  }),
});

LedgerEntryRef.implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    kind: t.expose('kind', { type: LedgerKindEnum }),
    delta: t.exposeInt('delta', { description: 'Credits added (negative for a downward adjustment).' }),
    reason: t.exposeString('reason'),
    actor: t.exposeString('actor', { description: 'Who made the change, e.g. admin:<tokenId>:<name> or cli:<user>.' }),
    by: t.field({ type: ActorRef, description: '`actor`, readable: name and role.', resolve: (entry, _args, ctx) => describeActor(entry.actor, ctx) }),
    idempotencyKey: t.exposeString('idempotencyKey', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AccountConnection = connection('AccountConnection', AccountRef);

builder.queryFields((t) => ({
  accounts: t.field({
    type: AccountConnection,
    description: 'Live accounts, newest first; `search` matches part of the name (case-insensitive) or the exact id.',
    args: { search: t.arg.string({ required: false }), ...pageArgs },
    complexity: pagedCost(),
    resolve: (_root, args, ctx) =>
      withCursor(() => ctx.store.listAccounts({ search: args.search?.trim() || undefined, limit: pageSize(args.first), after: args.after })),
  }),
  account: t.field({
    type: AccountRef,
    nullable: true,
    description: 'One account by id, deleted ones included. Unknown id: error NOT_FOUND.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const account = await ctx.loaders.account.load(String(args.id));
      if (!account) throw notFoundError('account not found');
      return account;
    },
  }),
}));

const CreateAccountPayload = builder
  .objectRef<{ account: Account; apiKey: IssuedKey }>('CreateAccountPayload')
  .implement({
    fields: (t) => ({
      account: t.field({ type: AccountRef, resolve: (p) => p.account }),
      apiKey: t.field({ type: IssuedApiKeyRef, resolve: (p) => p.apiKey }),
    }),
  });

const LedgerChangePayload = builder
  .objectRef<LedgerResult>('LedgerChangePayload')
  .implement({
    fields: (t) => ({
      account: t.field({ type: AccountRef, description: 'The account after the change.', resolve: (r) => r.account }),
      entry: t.field({ type: LedgerEntryRef, resolve: (r) => r.entry }),
      created: t.exposeBoolean('created', {
        description: 'False when this idempotency key was used before: nothing changed and `entry` is the original one.',
      }),
    }),
  });

const ErasePersonalDataPayload = builder
  .objectRef<{ account: Account; redacted: number; deleted: number; rechecks: number }>('ErasePersonalDataPayload')
  .implement({
    fields: (t) => ({
      account: t.field({ type: AccountRef, description: 'The account; its credits, ledger and usage are unchanged.', resolve: (r) => r.account }),
      redactedVerifications: t.exposeInt('redacted', { description: 'Verification records whose personal data was removed now (records redacted before are not counted).' }),
      deletedFailures: t.exposeInt('deleted', { description: 'Failed-request records deleted.' }),
      redactedRechecks: t.exposeInt('rechecks', {
        description: 'Finished re-checks whose personal data was removed now (re-checks redacted before, and open ones, are not counted).',
      }),
    }),
  });

const { requiredReason, optionalReason } = builder.args((t) => ({
  requiredReason: t.string({ required: true, description: 'Why (kept in the ledger and the admin events).' }),
  optionalReason: t.string({ required: false, description: 'Why (kept in the admin events).' }),
}));

builder.mutationFields((t) => ({
  createAccount: t.field({
    type: CreateAccountPayload,
    authScopes: { admin: true },
    description: 'Creates an account with its first API key (the secret is in this response only). Role: ADMIN.',
    args: {
      name: t.arg.string({ required: true }),
      credits: t.arg.int({ required: false, defaultValue: 0 }),
      reason: optionalReason,
    },
    resolve: (_root, args, ctx) => ctx.actions.createAccount(ctx.actor, { name: args.name, credits: args.credits ?? 0, reason: args.reason }),
  }),
  topUpCredits: t.field({
    type: LedgerChangePayload,
    authScopes: { support: true },
    description:
      'Adds credits. Repeat-safe: the same idempotencyKey returns the first result (created: false) and never adds twice; ' +
      'reusing it for another account, amount or kind of change is refused (IDEMPOTENCY_KEY_REUSED). Role: SUPPORT or ADMIN.',
    args: {
      accountId: t.arg.id({ required: true }),
      credits: t.arg.int({ required: true }),
      reason: requiredReason,
      idempotencyKey: t.arg.string({ required: true, description: 'e.g. the invoice or ticket id; 1 to 200 characters.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.actions.topUp(ctx.actor, { accountId: String(args.accountId), credits: args.credits, reason: args.reason, idempotencyKey: args.idempotencyKey }),
  }),
  adjustCredits: t.field({
    type: LedgerChangePayload,
    authScopes: { admin: true },
    description: 'Corrects a balance up or down (never below zero: INSUFFICIENT_CREDITS). Role: ADMIN.',
    args: {
      accountId: t.arg.id({ required: true }),
      delta: t.arg.int({ required: true }),
      reason: requiredReason,
      idempotencyKey: t.arg.string({ required: false }),
    },
    resolve: (_root, args, ctx) =>
      ctx.actions.adjust(ctx.actor, { accountId: String(args.accountId), delta: args.delta, reason: args.reason, idempotencyKey: args.idempotencyKey ?? null }),
  }),
  createApiKey: t.field({
    type: IssuedApiKeyRef,
    authScopes: { support: true },
    description: 'Issues another API key (the secret is in this response only). Role: SUPPORT or ADMIN.',
    args: {
      accountId: t.arg.id({ required: true }),
      reason: optionalReason,
      allowedIps: t.arg.stringList({ required: false, description: 'IPv4/IPv6 CIDR ranges the key is accepted from; omitted or empty: any address.' }),
    },
    resolve: (_root, args, ctx) => ctx.actions.createApiKey(ctx.actor, String(args.accountId), args.reason, args.allowedIps ?? []),
  }),
  setApiKeyAllowedIps: t.field({
    type: ApiKeyRef,
    authScopes: { support: true },
    description:
      'Replaces the CIDR ranges a key is accepted from (empty list: any address). This process applies it at once; others within API_KEY_CACHE_TTL_MS. Role: SUPPORT or ADMIN.',
    args: { keyId: t.arg.id({ required: true }), allowedIps: t.arg.stringList({ required: true }), reason: optionalReason },
    resolve: (_root, args, ctx) => ctx.actions.setApiKeyAllowedIps(ctx.actor, String(args.keyId), args.allowedIps, args.reason),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    authScopes: { support: true },
    description: 'Revokes a key: this process refuses it at once (1021); other processes within API_KEY_CACHE_TTL_MS. Role: SUPPORT or ADMIN.',
    args: { keyId: t.arg.id({ required: true }), reason: optionalReason },
    resolve: (_root, args, ctx) => ctx.actions.revokeApiKey(ctx.actor, String(args.keyId), args.reason),
  }),
  renameAccount: t.field({
    type: AccountRef,
    authScopes: { support: true },
    description: "Renames an account (1 to 200 characters once trimmed): the name staff read and the checkout page shows customers. Role: SUPPORT or ADMIN.",
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true }), reason: optionalReason },
    resolve: (_root, args, ctx) => ctx.actions.renameAccount(ctx.actor, String(args.id), args.name, args.reason),
  }),
  deleteAccount: t.field({
    type: AccountRef,
    authScopes: { admin: true },
    description: 'Soft-deletes an account: its keys answer 1022 from now on; history stays. Role: ADMIN.',
    args: { id: t.arg.id({ required: true }), reason: optionalReason },
    resolve: (_root, args, ctx) => ctx.actions.deleteAccount(ctx.actor, String(args.id), args.reason),
  }),
  erasePersonalData: t.field({
    type: ErasePersonalDataPayload,
    authScopes: { admin: true },
    description:
      "Erases an account's personal data now (a PDPA erasure request), the same redaction RETENTION_DAYS applies, to every record whatever its age: " +
      'verifications keep account, amount, banks, transactionId and times (redactedAt set), failed requests are deleted, ' +
      'finished re-checks are redacted the same way (open ones are left to finish). ' +
      'Credits, ledger and usage stay exact; deleted accounts can be erased too. Recorded as an admin event. Role: ADMIN.',
    args: { accountId: t.arg.id({ required: true }), reason: optionalReason },
    resolve: (_root, args, ctx) => ctx.actions.erasePersonalData(ctx.actor, String(args.accountId), args.reason),
  }),
}));
