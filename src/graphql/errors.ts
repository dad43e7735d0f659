// What a client may learn from an error. Known domain refusals become
// GraphQL errors with a stable `extensions.code` and our own plain message;
// everything else is logged here and masked (no stack, no driver text).
import type { GraphQLError } from 'graphql';
import { maskError as yogaMaskError, type MaskError } from 'graphql-yoga';
import type { Logger } from 'pino';
import { InputError } from '../domain/errors.js';
import { IdempotencyConflictError } from '../domain/admin/actions.js';
import { StoreError } from '../domain/ports/store.js';
import { graphqlJs } from './graphql-js.js';

const ERROR_CODES = {
  badUserInput: 'BAD_USER_INPUT',
  notFound: 'NOT_FOUND',
  forbidden: 'FORBIDDEN',
  insufficientCredits: 'INSUFFICIENT_CREDITS',
  idempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED',
  conflict: 'CONFLICT',
  queryTooComplex: 'QUERY_TOO_COMPLEX',
} as const;

function coded(code: string, message: string): GraphQLError {
  return new graphqlJs.GraphQLError(message, { extensions: { code } });
}

export const userInputError = (message: string) => coded(ERROR_CODES.badUserInput, message);
export const notFoundError = (message: string) => coded(ERROR_CODES.notFound, message);
/** A change the data's state refuses; `reason` names which refusal, for clients to branch on. */
export const conflictError = (message: string, reason: string) => new graphqlJs.GraphQLError(message, { extensions: { code: ERROR_CODES.conflict, reason } });
export const forbiddenError = () => coded(ERROR_CODES.forbidden, 'your admin role may not do this');
export const tooComplexError = (cost: number, max: number) =>
  coded(ERROR_CODES.queryTooComplex, `query cost ${cost} is over the limit of ${max}: ask for fewer items (first) or fewer nested lists`);

/** Code and message for errors whose text we wrote ourselves; null for the rest. */
function knownError(err: unknown): { code: string; message: string } | null {
  if (err instanceof InputError) return { code: ERROR_CODES.badUserInput, message: err.message };
  if (err instanceof IdempotencyConflictError) return { code: ERROR_CODES.idempotencyKeyReused, message: err.message };
  if (err instanceof StoreError) {
    switch (err.code) {
      case 'not_found':
        return { code: ERROR_CODES.notFound, message: err.message };
      case 'insufficient':
        return { code: ERROR_CODES.insufficientCredits, message: 'not enough credits: the change would make the balance negative' };
      case 'conflict':
        return { code: ERROR_CODES.conflict, message: err.message };
      case 'invalid_cursor':
        return { code: ERROR_CODES.badUserInput, message: 'invalid cursor: pass an endCursor from a previous page' };
      case 'unavailable':
        return null;
    }
  }
  return null;
}

/** True when the error (or what it wraps) was deliberately thrown as a GraphQLError. */
function isOwnGraphQLError(err: unknown): boolean {
  if (!(err instanceof graphqlJs.GraphQLError)) return false;
  return err.originalError == null || isOwnGraphQLError(err.originalError);
}

export function createMaskError(logger: Logger): MaskError {
  return (error, message) => {
    if (isOwnGraphQLError(error)) return error as GraphQLError;
    const located = error instanceof graphqlJs.GraphQLError ? error : null;
    const original = located?.originalError ?? error;
    const known = knownError(original);
    if (known) {
      return new graphqlJs.GraphQLError(known.message, {
        nodes: located?.nodes,
        source: located?.source,
        positions: located?.positions,
        path: located?.path,
        extensions: { code: known.code },
      });
    }
    logger.error({ err: original, path: located?.path?.join('.') }, 'GraphQL request failed inside slipgate');
    return yogaMaskError(error, message, false);
  };
}
