// Every domain's answer passes here, whatever its provider (pool.ts): the
// shared rule for bank answers (domain/verify/bank-answer.ts), a slip API's
// own record kept as the caller's rawData, and a refusal that names the
// domain and is logged with the references an operator needs, never a key
// or a QR.
import type { BankAnswer, SlipQuery, UpstreamFailure, UpstreamResult } from '../domain/ports/upstream.js';
import { acceptBankAnswer } from '../domain/verify/bank-answer.js';
import type { UpstreamLogger } from './pool-types.js';
import { failure, MESSAGES } from './shared/outcomes.js';

export function acceptAnswer(query: SlipQuery, answer: Extract<BankAnswer, { ok: true }>, upstream: string, logger?: UpstreamLogger): UpstreamResult {
  if (answer.transaction !== undefined && !isPlainObject(answer.data)) {
    return failure('upstream_error', `${MESSAGES.error}: the slip's data is not an object`, upstream) satisfies UpstreamFailure;
  }
  const verdict = acceptBankAnswer(query, answer.transaction ?? answer.data);
  // A slip API's own record stays the caller's rawData, exactly as it came.
  if (verdict.ok && answer.transaction !== undefined) verdict.slip.rawData = answer.data as typeof verdict.slip.rawData;
  if (verdict.ok) return { ok: true, slip: verdict.slip, upstream };
  if (verdict.cause) logger?.error({ err: verdict.cause, upstream, requestId: query.requestId }, 'unexpected bank payload');
  if (verdict.answered) {
    logger?.error(
      { upstream, requestId: query.requestId, asked: { transRef: query.transRef, sendingBank: query.sendingBank }, answered: verdict.answered },
      'bank answered about a different slip; answer refused',
    );
  }
  return failure(verdict.kind, verdict.message, upstream) satisfies UpstreamFailure;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
