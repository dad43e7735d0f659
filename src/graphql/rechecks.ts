// Slips being re-checked (docs/payments.md#re-checks): an account's open
// re-checks, and the slip a payment request is `verifying`. Viewers read.
// The slip's transaction reference is shown masked, as the public GET shows it.
import type { Recheck } from '../domain/rechecks/types.js';
import { maskedRef } from '../domain/rechecks/view.js';
import { builder } from './builder.js';
import { STORE_READ_COST } from './pagination.js';
import { PaymentRequestRef } from './payments.js';
import { AccountRef } from './refs.js';

/** Open re-checks one query lists at most (an account keeps RECHECK_MAX_PER_ACCOUNT, 100 by default). */
const MAX_LISTED = 200;

const RecheckRef = builder.objectRef<Recheck>('Recheck').implement({
  description: 'A slip the bank did not know yet, kept and asked again until its deadline: nothing charged unless the bank confirms it.',
  fields: (t) => ({
    verificationId: t.exposeID('id', { description: 'The id the 202 answer gave (GET /api/v1/verifications/{id}).' }),
    paymentRequestId: t.exposeID('paymentRequestId', { nullable: true, description: 'The payment request it was sent for; null for a plain verify with recheck.' }),
    sendingBank: t.exposeString('sendingBank'),
    transRef: t.string({ description: 'The transaction reference, masked but for its last 4 characters.', resolve: (r) => maskedRef(r.transRef) }),
    since: t.expose('createdAt', { type: 'DateTime' }),
    deadline: t.expose('deadline', { type: 'DateTime', description: 'When it ends unconfirmed unless the bank confirms it first.' }),
    attempts: t.exposeInt('attempts', { description: 'Times the bank was asked again so far.' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime' }),
  }),
});

builder.objectFields(AccountRef, (t) => ({
  openRechecks: t.field({
    type: [RecheckRef],
    description: 'Slips being re-checked, newest first (at most 200).',
    args: { first: t.arg.int({ required: false, description: 'How many (default and at most 200).' }) },
    complexity: STORE_READ_COST,
    resolve: (account, args, ctx) => ctx.store.openRechecks({ accountId: account.id, limit: Math.min(Math.max(args.first ?? MAX_LISTED, 1), MAX_LISTED) }),
  }),
}));

builder.objectFields(PaymentRequestRef, (t) => ({
  verifying: t.field({
    type: RecheckRef,
    nullable: true,
    description: 'The newest slip sent for it that is being re-checked (the public GET then shows status verifying); null when none.',
    complexity: STORE_READ_COST,
    resolve: async (p, _args, ctx) =>
      p.status === 'pending' || p.status === 'expired' ? ((await ctx.store.openRechecks({ accountId: p.accountId, paymentRequestId: p.id, limit: 1 }))[0] ?? null) : null,
  }),
}));
