// The acting token (`me`) and the trail of admin actions.
import type { AdminToken } from '../domain/types.js';
import { ActorRef, describeActor } from './actor.js';
import { builder } from './builder.js';
import { AdminRoleEnum } from './enums.js';
import { connection, pageArgs, pagedCost, pageSize, withCursor } from './pagination.js';
import { AdminEventRef } from './refs.js';

const AdminIdentity = builder.objectRef<AdminToken>('AdminIdentity').implement({
  description: 'The admin token making this request.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    role: t.expose('role', { type: AdminRoleEnum }),
    prefix: t.exposeString('prefix', { description: 'Visible start of the token, e.g. sgadm_Ab12Cd34.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

AdminEventRef.implement({
  description: 'Something a person did through an admin surface (GraphQL or CLI).',
  fields: (t) => ({
    id: t.exposeID('id'),
    actor: t.exposeString('actor', { description: 'admin:<tokenId>:<name> or cli:<user>.' }),
    by: t.field({ type: ActorRef, description: '`actor`, readable: name and role.', resolve: (event, _args, ctx) => describeActor(event.actor, ctx) }),
    action: t.exposeString('action', { description: 'e.g. createAccount, topUpCredits, adjustCredits, createApiKey, revokeApiKey, setApiKeyAllowedIps, renameAccount, deleteAccount, erasePersonalData, runRetention.' }),
    targetId: t.exposeID('targetId', { nullable: true, description: 'The account, key or token acted on.' }),
    reason: t.exposeString('reason', { nullable: true }),
    details: t.expose('details', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AdminEventConnection = connection('AdminEventConnection', AdminEventRef);

builder.queryFields((t) => ({
  me: t.field({ type: AdminIdentity, resolve: (_root, _args, ctx) => ctx.admin }),
  adminEvents: t.field({
    type: AdminEventConnection,
    description: 'Admin actions, newest first; `targetId` narrows to one account, key or token.',
    args: { targetId: t.arg.id({ required: false }), ...pageArgs },
    complexity: pagedCost(),
    resolve: (_root, args, ctx) =>
      withCursor(() =>
        ctx.store.listAdminEvents({ targetId: args.targetId == null ? undefined : String(args.targetId), limit: pageSize(args.first), after: args.after }),
      ),
  }),
}));
