// Registered receivers and the receiver policy of an account. Resolvers only
// translate; the rules are in ReceiverService via AdminActions (shared with
// the CLI and the dashboard).
import type { Receiver } from '../domain/types.js';
import { RECEIVER_POLICIES, type ReceiverPolicy } from '../domain/types.js';
import { builder } from './builder.js';
import { STORE_READ_COST } from './pagination.js';
import { AccountRef } from './refs.js';

const ReceiverRef = builder.objectRef<Receiver>('Receiver');

const ReceiverPolicyEnum = builder.enumType('ReceiverPolicy', {
  description:
    'OFF: plain answers (the default). REPORT: every success carries checks.receiver (which registered receiver was paid, or none). ' +
    'REQUIRE: a slip paid to no active registered receiver is refused with code 1025 (free, recorded).',
  values: Object.fromEntries(RECEIVER_POLICIES.map((value) => [value.toUpperCase(), { value }])) as Record<string, { value: ReceiverPolicy }>,
});

const ReceiverKindEnum = builder.enumType('ReceiverKind', {
  values: { BANK: { value: 'bank' as const }, PROMPTPAY: { value: 'promptpay' as const } },
});

ReceiverRef.implement({
  description: "A receiving account a merchant account registered: its slips' money should go here.",
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    kind: t.expose('kind', { type: ReceiverKindEnum }),
    bankCode: t.exposeString('bankCode', { nullable: true, description: '3-digit bank code of a bank account; null for PromptPay.' }),
    number: t.exposeString('number', { description: 'The account number, or the PromptPay id (a mobile number in its 0… form), digits only.' }),
    proxyType: t.exposeString('proxyType', { nullable: true, description: 'MSISDN, NATID (national or tax ID) or EWALLETID; null for a bank account.' }),
    name: t.exposeString('nameTh', { nullable: true, description: 'The name the bank prints (Thai, or any).' }),
    nameEn: t.exposeString('nameEn', { nullable: true }),
    label: t.exposeString('label', { nullable: true, description: "The merchant's own word for it (branch, till)." }),
    active: t.exposeBoolean('active', { description: 'Only active receivers count for the policy.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.objectFields(AccountRef, (t) => ({
  receiverPolicy: t.expose('receiverPolicy', { type: ReceiverPolicyEnum }),
  receivers: t.field({
    type: [ReceiverRef],
    description: 'Registered receiving accounts, oldest first, active or not.',
    complexity: { field: STORE_READ_COST, multiplier: 10 },
    resolve: (account, _args, ctx) => ctx.store.listReceivers(account.id),
  }),
}));

const { reason } = builder.args((t) => ({ reason: t.string({ required: false, description: 'Why (kept in the admin events).' }) }));

builder.mutationFields((t) => ({
  addReceiver: t.field({
    type: ReceiverRef,
    authScopes: { support: true },
    description:
      'Registers a bank account (bankCode + accountNumber) or a PromptPay target (promptPay: mobile, national/tax ID, e-wallet ID) with the name its bank prints. ' +
      'Checked by bank code, account length and check digits; a bad one is BAD_USER_INPUT and nothing changes. Role: SUPPORT or ADMIN.',
    args: {
      accountId: t.arg.id({ required: true }),
      bankCode: t.arg.string({ required: false }),
      accountNumber: t.arg.string({ required: false }),
      promptPay: t.arg.string({ required: false }),
      name: t.arg.string({ required: false, description: 'Thai name (or any), as the bank prints it.' }),
      nameEn: t.arg.string({ required: false }),
      label: t.arg.string({ required: false }),
      reason,
    },
    resolve: (_root, args, ctx) =>
      ctx.actions.addReceiver(
        ctx.actor,
        { accountId: String(args.accountId), bankCode: args.bankCode, account: args.accountNumber, promptPay: args.promptPay, nameTh: args.name, nameEn: args.nameEn, label: args.label },
        args.reason,
      ),
  }),
  setReceiverActive: t.field({
    type: ReceiverRef,
    authScopes: { support: true },
    description: "Activates or deactivates one of the account's receivers; the last active one of a REQUIRE account stays. Role: SUPPORT or ADMIN.",
    args: { accountId: t.arg.id({ required: true }), receiverId: t.arg.id({ required: true }), active: t.arg.boolean({ required: true }), reason },
    resolve: (_root, args, ctx) => ctx.actions.setReceiverActive(ctx.actor, String(args.receiverId), args.active, { accountId: String(args.accountId), reason: args.reason }),
  }),
  removeReceiver: t.field({
    type: ReceiverRef,
    authScopes: { support: true },
    description: "Removes one of the account's receivers (returned as it was); the last active one of a REQUIRE account stays. Role: SUPPORT or ADMIN.",
    args: { accountId: t.arg.id({ required: true }), receiverId: t.arg.id({ required: true }), reason },
    resolve: (_root, args, ctx) => ctx.actions.removeReceiver(ctx.actor, String(args.receiverId), { accountId: String(args.accountId), reason: args.reason }),
  }),
  setReceiverPolicy: t.field({
    type: AccountRef,
    authScopes: { support: true },
    description:
      'Sets what verifications do with the registered receivers. REQUIRE needs an active receiver first (BAD_USER_INPUT otherwise, nothing changes). ' +
      'This process applies it at once; others within API_KEY_CACHE_TTL_MS. Role: SUPPORT or ADMIN.',
    args: { accountId: t.arg.id({ required: true }), policy: t.arg({ type: ReceiverPolicyEnum, required: true }), reason },
    resolve: (_root, args, ctx) => ctx.actions.setReceiverPolicy(ctx.actor, String(args.accountId), args.policy, args.reason),
  }),
}));
