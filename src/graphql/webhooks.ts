// Webhook endpoints of an account and their deliveries with every attempt;
// support staff register, remove and redeliver. The signing secret appears
// in addWebhookEndpoint's answer only. Resolvers only translate; the rules
// are in domain/webhooks (shared with the CLI).
import type { RegisteredEndpoint } from '../domain/webhooks/endpoints.js';
import { endpointView } from '../domain/webhooks/endpoints.js';
import { WEBHOOK_EVENT_TYPES, type WebhookAttempt, type WebhookDelivery, type WebhookDeliveryState, type WebhookEndpointView, type WebhookEventType } from '../domain/webhooks/types.js';
import { builder } from './builder.js';
import { notFoundError } from './errors.js';
import { connection, pageArgs, pagedCost, pageSize, STORE_READ_COST, withCursor } from './pagination.js';
import { AccountRef } from './refs.js';

const WebhookEventTypeEnum = builder.enumType('WebhookEventType', {
  description: 'What an endpoint can subscribe to; the JSON body says it as written in docs/webhooks.md (VERIFICATION_SUCCEEDED: "verification.succeeded").',
  values: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type.toUpperCase().replaceAll('.', '_'), { value: type }])) as Record<string, { value: WebhookEventType }>,
});

const WebhookDeliveryStateEnum = builder.enumType('WebhookDeliveryState', {
  description: 'PENDING: to be attempted at nextAttemptAt; DELIVERED: the endpoint answered 2xx; FAILED: given up (retry window passed, or the endpoint was removed).',
  values: Object.fromEntries((['pending', 'delivered', 'failed'] as const).map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: WebhookDeliveryState }>,
});

const WebhookAttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The endpoint's HTTP status; null when none came (timeout, connection refused)." }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed; null when it succeeded (2xx).' }),
    durationMs: t.exposeInt('durationMs'),
  }),
});

const WebhookDeliveryRef = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
  description: 'One event for one endpoint, with every attempt made.',
  fields: (t) => ({
    id: t.exposeID('id'),
    eventId: t.exposeString('eventId', { description: 'The event id in the body (evt_…): the same in every attempt, for the receiver to drop repeats.' }),
    endpointId: t.exposeID('endpointId'),
    accountId: t.exposeID('accountId'),
    type: t.expose('type', { type: WebhookEventTypeEnum }),
    state: t.expose('state', { type: WebhookDeliveryStateEnum }),
    body: t.exposeString('body', { description: 'The exact JSON body sent (and signed) in every attempt.' }),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, description: 'When a PENDING delivery is attempted next.', resolve: (d) => (d.state === 'pending' ? d.nextAttemptAt : null) }),
    attempts: t.field({ type: [WebhookAttemptRef], description: 'Oldest first.', resolve: (d) => d.attempts }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const WebhookDeliveryConnection = connection('WebhookDeliveryConnection', WebhookDeliveryRef);

const WebhookEndpointRef = builder.objectRef<WebhookEndpointView>('WebhookEndpoint').implement({
  description: "A merchant's HTTPS endpoint for signed events. Its signing secret is never readable.",
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    url: t.exposeString('url'),
    events: t.field({ type: [WebhookEventTypeEnum], resolve: (e) => e.events }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    removedAt: t.expose('removedAt', { type: 'DateTime', nullable: true }),
    deliveries: t.field({
      type: WebhookDeliveryConnection,
      description: 'Newest first.',
      args: pageArgs,
      complexity: pagedCost(),
      resolve: (e, args, ctx) => withCursor(() => ctx.store.listWebhookDeliveries({ endpointId: e.id, limit: pageSize(args.first), after: args.after })),
    }),
  }),
});

const RegisteredWebhookEndpointRef = builder.objectRef<RegisteredEndpoint>('RegisteredWebhookEndpoint').implement({
  description: 'A newly registered endpoint. `secret` appears only in this response and can never be read again.',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointRef, resolve: (r) => r.endpoint }),
    secret: t.exposeString('secret', { description: 'The signing secret (whsec_…): give it to the merchant now, for verifying the slipgate-signature header.' }),
  }),
});

builder.objectFields(AccountRef, (t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpointRef],
    description: 'Webhook endpoints not removed, oldest first.',
    complexity: { field: STORE_READ_COST, multiplier: 10 },
    resolve: async (account, _args, ctx) => (await ctx.store.listWebhookEndpoints(account.id)).map(endpointView),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryConnection,
    description: 'Deliveries to every endpoint of the account, newest first.',
    args: pageArgs,
    complexity: pagedCost(),
    resolve: (account, args, ctx) => withCursor(() => ctx.store.listWebhookDeliveries({ accountId: account.id, limit: pageSize(args.first), after: args.after })),
  }),
}));

builder.queryFields((t) => ({
  webhookDelivery: t.field({
    type: WebhookDeliveryRef,
    description: 'One delivery by id. Unknown id: error NOT_FOUND.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const d = await ctx.store.getWebhookDelivery(String(args.id));
      if (!d) throw notFoundError('webhook delivery not found');
      return d;
    },
  }),
}));

const reason = builder.args((t) => ({ reason: t.string({ required: false, description: 'Why (kept in the admin events).' }) }));

builder.mutationFields((t) => ({
  addWebhookEndpoint: t.field({
    type: RegisteredWebhookEndpointRef,
    authScopes: { support: true },
    description:
      'Registers an endpoint for an account (https; http only for a loopback host; never the admin listener; no credentials in the URL). ' +
      'events: default every type. The signing secret is in this response only. Role: SUPPORT or ADMIN.',
    args: { accountId: t.arg.id({ required: true }), url: t.arg.string({ required: true }), events: t.arg({ type: [WebhookEventTypeEnum], required: false }), ...reason },
    resolve: (_root, args, ctx) => ctx.webhooks.add(ctx.actor, String(args.accountId), { url: args.url, events: args.events ?? undefined, reason: args.reason }),
  }),
  removeWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    authScopes: { support: true },
    description: 'Removes an endpoint: no more events are written for it and its pending deliveries fail. Role: SUPPORT or ADMIN.',
    args: { id: t.arg.id({ required: true }), ...reason },
    resolve: (_root, args, ctx) => ctx.webhooks.remove(ctx.actor, String(args.id), args.reason),
  }),
  redeliverWebhook: t.field({
    type: WebhookDeliveryRef,
    authScopes: { support: true },
    description: 'Sends a delivery again now, the same event and body (its attempts are kept), whatever its state. Role: SUPPORT or ADMIN.',
    args: { id: t.arg.id({ required: true }), ...reason },
    resolve: async (_root, args, ctx) => {
      await ctx.webhooks.redeliver(ctx.actor, String(args.id), args.reason);
      return (await ctx.store.getWebhookDelivery(String(args.id)))!;
    },
  }),
}));

// account.credits_low (docs/webhooks.md#accountcredits_low): the account's threshold.
builder.objectFields(AccountRef, (t) => ({
  creditsLowAt: t.int({
    nullable: true,
    description: 'account.credits_low fires once when credits fall below this (again after a top-up brings them back); null: off (the default).',
    complexity: STORE_READ_COST,
    resolve: (account, _args, ctx) => ctx.store.creditsLowAt(account.id),
  }),
}));

builder.mutationFields((t) => ({
  setCreditsLowAt: t.field({
    type: AccountRef,
    authScopes: { support: true },
    description: 'Sets the account.credits_low threshold (null: off); re-arms the event, and an account already below it is announced at once. Role: SUPPORT or ADMIN.',
    args: { accountId: t.arg.id({ required: true }), creditsLowAt: t.arg.int({ required: false }), reason: t.arg.string({ required: false, description: 'Why (kept in the admin events).' }) },
    resolve: async (_root, args, ctx) => {
      await ctx.actions.setCreditsLowAt(ctx.actor, String(args.accountId), args.creditsLowAt ?? null, args.reason);
      return (await ctx.store.getAccount(String(args.accountId)))!;
    },
  }),
}));
