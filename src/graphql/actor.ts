// `by` on ledger entries and admin events: the `actor` string made readable,
// an admin token's name and role (looked up, so a renamed or revoked token
// still shows who it was), or the CLI user.
import { parseActor } from '../domain/admin/tokens.js';
import type { AdminRole } from '../domain/types.js';
import { builder } from './builder.js';
import type { GraphqlContext } from './context.js';
import { AdminRoleEnum } from './enums.js';

interface ActorView {
  kind: 'admin_token' | 'cli' | 'other';
  name: string;
  role: AdminRole | null;
  adminId: string | null;
}

const ActorKindEnum = builder.enumType('ActorKind', {
  description: 'ADMIN_TOKEN: through GraphQL or the dashboard; CLI: the operator command line; OTHER: anything else (kept as written).',
  values: { ADMIN_TOKEN: { value: 'admin_token' }, CLI: { value: 'cli' }, OTHER: { value: 'other' } } as const,
});

export const ActorRef = builder.objectRef<ActorView>('Actor').implement({
  description: 'Who made a change.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ActorKindEnum }),
    name: t.exposeString('name', { description: "The token's name when it acted, or the CLI user." }),
    role: t.expose('role', { type: AdminRoleEnum, nullable: true, description: "The admin token's role; null for the CLI, or a token no longer on record." }),
    adminId: t.exposeID('adminId', { nullable: true, description: 'The admin identity (token id) that acted; null for the CLI.' }),
  }),
});

export async function describeActor(actor: string, ctx: GraphqlContext): Promise<ActorView> {
  const parts = parseActor(actor);
  if (parts.kind !== 'admin_token') return { kind: parts.kind, name: parts.name, role: null, adminId: null };
  const token = await ctx.loaders.adminToken.load(parts.tokenId);
  return { kind: 'admin_token', name: parts.name, role: token?.role ?? null, adminId: parts.tokenId };
}
