// Limits on what one operation may ask for, checked before it runs: deep
// nesting (the Account ↔ record cycle), alias fan-out, token count. Cost is
// the complexity plugin's (builder.ts): it sees the request's variables.
// Introspection is for the ADMIN role only; nobody gets field suggestions.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from './context.js';
import { graphqlJs } from './graphql-js.js';

export const ARMOR_LIMITS = {
  maxDepth: 8,
  maxAliases: 10,
  /** Room for GraphiQL's introspection query, not for megabyte documents. */
  maxTokens: 3000,
  maxDirectives: 20,
};

export function armorPlugins(): Plugin[] {
  const armor = new EnvelopArmor({
    maxDepth: { n: ARMOR_LIMITS.maxDepth, ignoreIntrospection: true },
    maxAliases: { n: ARMOR_LIMITS.maxAliases },
    costLimit: { enabled: false },
    maxTokens: { n: ARMOR_LIMITS.maxTokens },
    maxDirectives: { n: ARMOR_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: true },
  });
  return armor.protect().plugins as Plugin[];
}

export function introspectionForAdminsOnly(): Plugin<ServerContext> {
  return {
    onValidate({ context, addValidationRule }) {
      if (context.admin?.role !== 'admin') addValidationRule(graphqlJs.NoSchemaIntrospectionCustomRule);
    },
  };
}
