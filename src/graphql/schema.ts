// The schema, built once from the area files, and its checked-in SDL.
import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import { graphqlJs } from './graphql-js.js';
import './scalars.js';
import './enums.js';
import './accounts.js';
import './receivers.js';
import './audit.js';
import './usage.js';
import './upstreams.js';
import './admin.js';
import './webhooks.js';
import './payments.js';
import './rechecks.js';
import './line.js';

let built: GraphQLSchema | undefined;

export function graphqlSchema(): GraphQLSchema {
  return (built ??= builder.toSchema());
}

const SDL_HEADER = `# The internal GraphQL API (admin listener only, POST /graphql).
# Generated from the code-first Pothos schema by \`npm run schema\`; a test
# fails when this file is out of date.
`;

/** The contents of schema.graphql: sorted, so diffs show real changes only. */
export function schemaSdl(): string {
  return `${SDL_HEADER}\n${graphqlJs.printSchema(graphqlJs.lexicographicSortSchema(graphqlSchema()))}\n`;
}
