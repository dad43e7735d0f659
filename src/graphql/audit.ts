// The audit log: successful verifications and failed requests, filtered and
// paged newest first. `account` on each record goes through the DataLoader.
import type { RequestErrorRecord, VerifyTransactionRecord } from '../domain/types.js';
import type { AuditQuery } from '../domain/ports/store.js';
import type { InputFieldBuilder } from '@pothos/core';
import { builder, type Types } from './builder.js';
import type { GraphqlContext } from './context.js';
import { ErrorKindEnum, VerifySourceEnum } from './enums.js';
import { userInputError } from './errors.js';
import { slipReference } from '../domain/verify/slip-qr.js';
import { connection, pageArgs, pagedCost, pageSize, withCursor } from './pagination.js';
import { AccountRef, RequestErrorRef, VerifyTransactionRef } from './refs.js';

VerifyTransactionRef.implement({
  description: 'A successful verification; it cost its account one credit.',
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    account: t.field({ type: AccountRef, nullable: true, resolve: (r, _args, ctx) => ctx.loaders.account.load(r.accountId) }),
    keyId: t.exposeID('keyId'),
    requestId: t.exposeString('requestId'),
    qrcode: t.exposeString('qrcode'),
    transactionId: t.exposeString('transactionId'),
    amount: t.exposeFloat('amount', { description: 'THB.' }),
    sendingBank: t.exposeString('sendingBank', { description: 'Bank code, e.g. 014.' }),
    receivingBank: t.exposeString('receivingBank'),
    upstream: t.exposeString('upstream', { description: 'Bank network domain that answered.' }),
    latencyMs: t.exposeInt('latencyMs'),
    response: t.expose('response', { type: 'JSON', description: 'The `data` object returned to the caller.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    source: t.field({ type: VerifySourceEnum, description: 'Where the QR came from (LINE: a slip sent in a LINE chat; keyId is then `line:<channel id>`).', resolve: (r) => r.source ?? 'qrcode' }),
    lineUserId: t.string({ nullable: true, description: 'The LINE user who sent the slip (personal data: blank once redacted).', resolve: (r) => r.lineUserId ?? null }),
    redactedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the personal data was removed (RETENTION_DAYS, or erasePersonalData): names, account numbers, proxies and `rawData` in `response` are blank, ' +
        'and `qrcode` is blank when it held more than the bank and reference. Account, amount, banks, transactionId, upstream and times stay. Null: the record is whole.',
      resolve: (r) => r.redactedAt ?? null,
    }),
  }),
});

RequestErrorRef.implement({
  description: 'A failed request; never charged.',
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId', { nullable: true }),
    account: t.field({
      type: AccountRef,
      nullable: true,
      resolve: (r, _args, ctx) => (r.accountId ? ctx.loaders.account.load(r.accountId) : null),
    }),
    keyId: t.exposeID('keyId', { nullable: true }),
    requestId: t.exposeString('requestId'),
    qrcode: t.exposeString('qrcode', { nullable: true }),
    transactionId: t.exposeString('transactionId', { nullable: true, description: "The slip's transaction reference, read from its QR; null when the QR did not parse." }),
    sendingBank: t.exposeString('sendingBank', { nullable: true, description: 'Bank code from the QR, e.g. 014.' }),
    kind: t.expose('kind', { type: ErrorKindEnum }),
    message: t.exposeString('message'),
    upstream: t.exposeString('upstream', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    lineUserId: t.string({ nullable: true, description: 'The LINE user who sent the slip, when it came through a LINE channel (keyId is then `line:<channel id>`).', resolve: (r) => r.lineUserId ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ActivityUnion = builder.unionType('Activity', {
  description: 'One request of an account: a verification or a failure.',
  types: [VerifyTransactionRef, RequestErrorRef],
  resolveType: (item) => ('kind' in item ? RequestErrorRef : VerifyTransactionRef),
});

/** Both kinds of record merged, newest first. */
export async function recentActivity(ctx: GraphqlContext, accountId: string, limit: number): Promise<(VerifyTransactionRecord | RequestErrorRecord)[]> {
  const [ok, failed] = await Promise.all([
    ctx.store.listVerifyTransactions({ accountId, limit }),
    ctx.store.listRequestErrors({ accountId, limit }),
  ]);
  return [...ok.items, ...failed.items]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
    .slice(0, limit);
}

/** Filters both audit lists take; a failure's transaction and bank are read from its slip QR. */
function commonFilterFields(t: InputFieldBuilder<Types, 'InputObject'>) {
  return {
    accountId: t.id({ required: false }),
    from: t.field({ type: 'DateTime', required: false, description: 'Inclusive.' }),
    to: t.field({ type: 'DateTime', required: false, description: 'Exclusive.' }),
    upstream: t.string({ required: false, description: 'Bank network domain name.' }),
    requestId: t.string({ required: false, description: 'The x-request-id of the verify call.' }),
    transactionId: t.string({ required: false, description: "The slip's transaction reference, in either case." }),
    sendingBank: t.string({ required: false, description: 'Bank code, e.g. 014.' }),
  };
}

const VerifyTransactionFilter = builder.inputType('VerifyTransactionFilter', {
  fields: (t) => ({ ...commonFilterFields(t), receivingBank: t.string({ required: false }) }),
});

const RequestErrorFilter = builder.inputType('RequestErrorFilter', {
  fields: (t) => ({ ...commonFilterFields(t), kind: t.field({ type: ErrorKindEnum, required: false }) }),
});

interface FilterInput {
  accountId?: string | number | null;
  from?: Date | null;
  to?: Date | null;
  upstream?: string | null;
  requestId?: string | null;
  transactionId?: string | null;
  sendingBank?: string | null;
  receivingBank?: string | null;
  kind?: AuditQuery['kind'] | null;
}

/** GraphQL nulls become "no filter"; an empty time range is a mistake worth telling. */
function auditQuery(filter: FilterInput | null | undefined, first: number | null | undefined, after: string | null | undefined): AuditQuery {
  const f = filter ?? {};
  if (f.from && f.to && f.to.getTime() <= f.from.getTime()) throw userInputError('filter.to must be later than filter.from');
  return {
    accountId: f.accountId == null ? undefined : String(f.accountId),
    from: f.from ?? undefined,
    to: f.to ?? undefined,
    upstream: f.upstream ?? undefined,
    requestId: f.requestId ?? undefined,
    // Records name a slip by its upper-case identity (slip-qr.ts): any spelling an operator types finds it.
    transactionId: f.transactionId == null ? undefined : slipReference(f.transactionId),
    sendingBank: f.sendingBank ?? undefined,
    receivingBank: f.receivingBank ?? undefined,
    kind: f.kind ?? undefined,
    limit: pageSize(first),
    after: after ?? null,
  };
}

const VerifyTransactionConnection = connection('VerifyTransactionConnection', VerifyTransactionRef);
const RequestErrorConnection = connection('RequestErrorConnection', RequestErrorRef);

builder.queryFields((t) => ({
  verifyTransactions: t.field({
    type: VerifyTransactionConnection,
    description: 'Successful verifications, newest first.',
    args: { filter: t.arg({ type: VerifyTransactionFilter, required: false }), ...pageArgs },
    complexity: pagedCost(),
    resolve: (_root, args, ctx) => withCursor(() => ctx.store.listVerifyTransactions(auditQuery(args.filter, args.first, args.after))),
  }),
  requestErrors: t.field({
    type: RequestErrorConnection,
    description: 'Failed requests, newest first.',
    args: { filter: t.arg({ type: RequestErrorFilter, required: false }), ...pageArgs },
    complexity: pagedCost(),
    resolve: (_root, args, ctx) => withCursor(() => ctx.store.listRequestErrors(auditQuery(args.filter, args.first, args.after))),
  }),
}));
