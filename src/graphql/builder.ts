// The one Pothos builder. Every request is authenticated before GraphQL runs
// (context.ts), so scopes only decide what the acting token's role may do.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { roleAllows } from '../domain/admin-tokens.js';
import type { GraphqlContext } from './context.js';
import { forbiddenError } from './errors.js';

export const builder = new SchemaBuilder<{
  Context: GraphqlContext;
  AuthScopes: { viewer: boolean; support: boolean; admin: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({
      viewer: roleAllows(ctx.admin.role, 'viewer'),
      support: roleAllows(ctx.admin.role, 'support'),
      admin: roleAllows(ctx.admin.role, 'admin'),
    }),
    unauthorizedError: () => forbiddenError(),
  },
});

export type Types = typeof builder.$inferSchemaTypes;

// Root types: every query needs at least the viewer role; each mutation
// names the role it needs.
builder.queryType({ authScopes: { viewer: true } });
builder.mutationType({});
