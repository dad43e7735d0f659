// DateTime (ISO-8601 instants) and JSON (stored audit payloads, event details).
import type { ValueNode } from 'graphql';
import { builder } from './builder.js';
import { userInputError } from './errors.js';
import { graphqlJs } from './graphql-js.js';

/** A date-time with an explicit offset, so "from"/"to" never depend on the server's zone. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseInstant(value: unknown): Date {
  const date = typeof value === 'string' && ISO_INSTANT.test(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) {
    throw userInputError('DateTime must be an ISO-8601 date-time with an offset, e.g. 2025-01-31T17:00:00Z or 2025-02-01T00:00:00+07:00');
  }
  return date;
}

builder.scalarType('DateTime', {
  description: 'An instant as ISO-8601 text. Output is always UTC (…Z); input needs an offset (Z or ±hh:mm).',
  serialize: (value) => value.toISOString(),
  parseValue: parseInstant,
  parseLiteral: (ast: ValueNode) => parseInstant(ast.kind === graphqlJs.Kind.STRING ? ast.value : null),
});

builder.scalarType('JSON', {
  description: 'Any JSON value (read-only: stored verification responses and admin event details).',
  serialize: (value) => value,
  parseValue: () => {
    throw userInputError('JSON is an output-only type');
  },
});
