// Payment requests of an account (docs/payments.md) with the slip that paid
// each, and the account's unique-amount setting. Viewers read; support staff
// change the setting. Amounts in baht, as the public routes answer them.
import { bahtOf } from '../domain/payments/money.js';
import { PAYMENT_REFUSALS, PAYMENT_STATUSES, type PayingSlip, type PaymentRecord, type PaymentRefusal, type PaymentRequest, type PaymentStatus } from '../domain/payments/types.js';
import { builder } from './builder.js';
import { conflictError, notFoundError, userInputError } from './errors.js';
import { recordAdminEvent } from '../domain/admin/events.js';
import { ResolveRefused } from '../domain/payments/resolve.js';
import type { GraphqlContext } from './context.js';
import { parsePaymentRequestBody } from '../domain/payments/input.js';
import { PaymentRequestRefused } from '../domain/payments/service.js';
import { connection, pageArgs, pagedCost, pageSize, STORE_READ_COST, withCursor } from './pagination.js';
import { AccountRef, VerifyTransactionRef } from './refs.js';

const PaymentStatusEnum = builder.enumType('PaymentRequestStatus', {
  values: Object.fromEntries(PAYMENT_STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: PaymentStatus }>,
});

const PaymentRefusalEnum = builder.enumType('PaymentRefusal', {
  values: Object.fromEntries(PAYMENT_REFUSALS.map((r) => [r.toUpperCase(), { value: r }])) as Record<string, { value: PaymentRefusal }>,
});

const PaymentVerdictRef = builder.objectRef<PaymentRecord>('PaymentVerdict').implement({
  description: 'What a verification sent for a payment request did to it, as its record keeps it.',
  fields: (t) => ({
    requestId: t.exposeID('requestId', { description: 'The payment request the slip was sent for.' }),
    status: t.expose('status', { type: PaymentStatusEnum, description: "The request's status after this slip." }),
    reason: t.expose('reason', { type: PaymentRefusalEnum, nullable: true, description: 'Why this slip did not pay it; null when it did (or had before).' }),
  }),
});

builder.objectFields(VerifyTransactionRef, (t) => ({
  payment: t.field({
    type: PaymentVerdictRef,
    nullable: true,
    description: 'The payment request the slip was sent for and what the slip did to it; null when it named none.',
    resolve: (r) => r.payment ?? null,
  }),
}));

const PayingSlipRef = builder.objectRef<PayingSlip>('PayingSlip').implement({
  description: 'The verified slip that paid a payment request.',
  fields: (t) => ({
    verificationId: t.exposeString('verificationId', { description: 'The verification (its request id) that paid it: find it in the audit log.' }),
    transactionId: t.exposeString('transactionId'),
    sendingBank: t.exposeString('sendingBank'),
    amount: t.float({ description: 'Baht.', resolve: (s) => bahtOf(s.amount) }),
    transferredAt: t.expose('transferredAt', { type: 'DateTime' }),
  }),
});

export const PaymentRequestRef = builder.objectRef<PaymentRequest>('PaymentRequest').implement({
  description: "A merchant's order to be paid by one PromptPay transfer: its QR, its status and the slip that paid it.",
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    reference: t.exposeString('reference', { description: "The merchant's order id." }),
    amount: t.float({ description: 'What the customer must pay, in baht.', resolve: (p) => bahtOf(p.amount) }),
    requestedAmount: t.float({ description: 'What the merchant asked, in baht (differs under unique amounts).', resolve: (p) => bahtOf(p.requestedAmount) }),
    status: t.expose('status', { type: PaymentStatusEnum }),
    receiverId: t.exposeID('receiverId'),
    promptpay: t.exposeString('promptpay', { description: 'The EMVCo payload of the dynamic PromptPay QR.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
    paidBy: t.field({ type: PayingSlipRef, nullable: true, resolve: (p) => p.paidBy }),
    closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true, description: 'When it was cancelled or marked expired (kept when a slip transferred in time paid it afterwards).' }),
    checkoutUrl: t.string({
      nullable: true,
      description: "The customer's checkout page (docs/payments.md#checkout-page); null without PUBLIC_URL and SECRETS_KEY.",
      resolve: (p, _args, ctx) => ctx.payments?.checkoutUrl(p.id) ?? null,
    }),
    successUrl: t.exposeString('successUrl', { nullable: true, description: 'Where the checkout page sends the customer once paid.' }),
  }),
});

const PaymentResolutionRef = builder.objectRef<{ request: PaymentRequest; changed: boolean }>('PaymentResolution').implement({
  description: 'What a staff resolution did.',
  fields: (t) => ({
    paymentRequest: t.field({ type: PaymentRequestRef, resolve: (r) => r.request }),
    changed: t.exposeBoolean('changed', { description: 'False when this slip had paid the request already (resolved before, or sent by the customer): nothing was written.' }),
  }),
});

const PaymentRequestConnection = connection('PaymentRequestConnection', PaymentRequestRef);

builder.objectFields(AccountRef, (t) => ({
  uniquePaymentAmounts: t.boolean({
    description: 'Whether each pending payment request of a receiver gets its own amount (0.01–0.99 baht added).',
    complexity: STORE_READ_COST,
    resolve: (account, _args, ctx) => ctx.store.uniquePaymentAmounts(account.id),
  }),
  paymentRequests: t.field({
    type: PaymentRequestConnection,
    description: 'Payment requests, newest first; by status and creation time (from inclusive, to exclusive).',
    args: { ...pageArgs, status: t.arg({ type: PaymentStatusEnum, required: false }), from: t.arg({ type: 'DateTime', required: false }), to: t.arg({ type: 'DateTime', required: false }) },
    complexity: pagedCost(),
    resolve: (account, args, ctx) =>
      withCursor(() =>
        ctx.store.listPaymentRequests({
          accountId: account.id,
          limit: pageSize(args.first),
          after: args.after,
          ...(args.status ? { status: args.status } : {}),
          ...(args.from ? { from: args.from } : {}),
          ...(args.to ? { to: args.to } : {}),
        }),
      ),
  }),
}));

builder.queryFields((t) => ({
  paymentRequest: t.field({
    type: PaymentRequestRef,
    description: 'One payment request by id. Unknown id: error NOT_FOUND.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const p = await ctx.store.getPaymentRequest(String(args.id));
      if (!p) throw notFoundError('payment request not found');
      return p;
    },
  }),
}));

builder.mutationFields((t) => ({
  setUniquePaymentAmounts: t.field({
    type: AccountRef,
    authScopes: { support: true },
    description: "Turns unique amounts of the account's new payment requests on or off. Role: SUPPORT or ADMIN.",
    args: { accountId: t.arg.id({ required: true }), on: t.arg.boolean({ required: true }), reason: t.arg.string({ required: false, description: 'Why (kept in the admin events).' }) },
    resolve: async (_root, args, ctx) => {
      await ctx.actions.setUniquePaymentAmounts(ctx.actor, String(args.accountId), args.on, args.reason);
      return (await ctx.store.getAccount(String(args.accountId)))!;
    },
  }),
  createPaymentRequest: t.field({
    type: PaymentRequestRef,
    authScopes: { support: true },
    description:
      "Makes a payment request for the account, as POST /api/v1/payment-requests does (a reference used before with the same fields answers that request). Role: SUPPORT or ADMIN.",
    args: {
      accountId: t.arg.id({ required: true }),
      amount: t.arg.string({ required: true, description: 'Baht: "250" or "250.50".' }),
      reference: t.arg.string({ required: true }),
      expiresInMinutes: t.arg.int({ required: false }),
      successUrl: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const payments = ctx.payments;
      const accountId = String(args.accountId);
      const account = await ctx.store.getAccount(accountId);
      if (!payments || !account || account.deletedAt) throw notFoundError('account not found');
      const input = parsePaymentRequestBody({
        amount: args.amount,
        reference: args.reference,
        ...(args.expiresInMinutes == null ? {} : { expiresInMinutes: args.expiresInMinutes }),
        ...(args.successUrl == null || args.successUrl === '' ? {} : { successUrl: args.successUrl }),
      });
      if (!input.ok) throw userInputError(input.message);
      try {
        const made = await payments.service.create(accountId, input.input);
        if (made.outcome === 'conflict') throw userInputError(`reference already used for another amount, receiver or expiry (${made.request.id})`);
        ctx.logger.info({ actor: ctx.actor, accountId, paymentRequestId: made.request.id }, 'payment request made by staff');
        if (made.outcome === 'created') await auditPaymentChange(ctx, 'createPaymentRequest', made.request);
        return made.request;
      } catch (err) {
        if (err instanceof PaymentRequestRefused) throw userInputError(err.message);
        throw err;
      }
    },
  }),
  cancelPaymentRequest: t.field({
    type: PaymentRequestRef,
    authScopes: { support: true },
    description: 'Cancels a pending payment request (cancelling twice is harmless; a paid or expired one stays as it is). Role: SUPPORT or ADMIN.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const request = await ctx.store.getPaymentRequest(String(args.id));
      if (!request || !ctx.payments) throw notFoundError('payment request not found');
      const after = await ctx.payments.service.cancel(request.accountId, request.id);
      if (!after) throw notFoundError('payment request not found');
      ctx.logger.info({ actor: ctx.actor, accountId: request.accountId, paymentRequestId: request.id, status: after.status }, 'payment request cancelled by staff');
      // Only the call that cancelled it is a change: cancelling again, or a paid one, leaves no event.
      if (request.status === 'pending' && after.status === 'cancelled') await auditPaymentChange(ctx, 'cancelPaymentRequest', after);
      return after;
    },
  }),
  resolvePaymentRequest: t.field({
    type: PaymentResolutionRef,
    authScopes: { support: true },
    description:
      'Staff resolution: the verified slip of `verificationId` (a success of the same account that paid no request) paid this pending or expired request. Another amount is accepted and recorded; a slip paid to another receiver needs `force`. No credit is charged; one payment_request.paid event (data.resolvedBy "staff"); the same pair again answers the same request and changes nothing. Refusals: NOT_FOUND, or CONFLICT with extensions.reason (already_paid, cancelled, slip_already_used, wrong_receiver, other_account). Role: SUPPORT or ADMIN.',
    args: {
      paymentRequestId: t.arg.id({ required: true }),
      verificationId: t.arg.id({ required: true, description: 'The verification (req_…) whose slip paid it, from the audit log.' }),
      note: t.arg.string({ required: false, description: 'Why (kept in the admin event).' }),
      force: t.arg.boolean({ required: false, description: "Accept a slip paid to another receiver than the request's (check first: it may be fraud)." }),
    },
    resolve: async (_root, args, ctx) => {
      try {
        return await ctx.resolutions.resolve({ paymentRequestId: String(args.paymentRequestId), verificationId: String(args.verificationId), actor: ctx.actor, note: args.note, force: args.force === true });
      } catch (err) {
        if (!(err instanceof ResolveRefused)) throw err;
        if (err.reason === 'request_not_found' || err.reason === 'verification_not_found') throw notFoundError(err.message);
        throw conflictError(err.message, err.reason);
      }
    },
  }),
}));

/** Requests made and cancelled by staff join the account's admin event trail, like its other changes. */
function auditPaymentChange(ctx: GraphqlContext, action: string, p: PaymentRequest) {
  const details = { paymentRequestId: p.id, reference: p.reference, amount: bahtOf(p.amount), status: p.status };
  return recordAdminEvent(ctx.store, new Date(), { actor: ctx.actor, action, targetId: p.accountId, details });
}
