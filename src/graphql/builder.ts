// The one Pothos builder. Every request is authenticated before GraphQL runs
// (context.ts), so scopes only decide what the acting token's role may do.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { roleAllows } from '../domain/admin/tokens.js';
import type { GraphqlContext } from './context.js';
import { forbiddenError, tooComplexError } from './errors.js';

/** Most an operation may cost; see pagination.ts for what things cost. */
const MAX_QUERY_COST = 5000;

export const builder = new SchemaBuilder<{
  Context: GraphqlContext;
  AuthScopes: { viewer: boolean; support: boolean; admin: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  // Costed before any root field runs, from the arguments as resolved with
  // the request's variables (graphql-armor's static rule cannot see
  // `first: $n`). A scalar costs 1; unpaged lists count as 10 items.
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: { complexity: MAX_QUERY_COST },
    complexityError: (_kind, result) => tooComplexError(result.complexity, MAX_QUERY_COST),
  },
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
