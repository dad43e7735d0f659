// What a simulated bank answers to one verify call, whatever its protocol:
// the behaviour knobs first, then the outcome a sandbox transRef asks for
// (`slipgate sandbox qr --outcome …` works against the simulator too).
import type { ServerResponse } from 'node:http';
import { sandboxAnswer } from '../sandbox/transaction.js';
import type { SimulatedBankState } from './bank-state.js';
import { hangUntilGone, sendJson, sendText, waitUnlessGone } from './http-io.js';

type VerifyOutcome =
  | { type: 'http_error'; status: number }
  | { type: 'malformed_json' }
  | { type: 'not_found' }
  | { type: 'bank_error' }
  | { type: 'pending' }
  | { type: 'duplicate' }
  | { type: 'quota_exceeded' }
  | { type: 'hang' }
  | { type: 'success' };

/** Null when the client went away during the simulated latency. */
async function decideVerifyOutcome(state: SimulatedBankState, res: ServerResponse, sendingBank: string, transRef: string): Promise<VerifyOutcome | null> {
  if (!(await waitUnlessGone(res, state.behavior.latencyMs))) return null;
  const { httpStatus, answer } = state.behavior;
  if (httpStatus !== null) return { type: 'http_error', status: httpStatus };
  if (state.randomFailure()) return { type: 'http_error', status: 500 };
  if (state.behavior.quota === 0) return { type: 'quota_exceeded' };
  if (answer !== 'normal') return { type: answer };
  switch (sandboxAnswer(transRef, state.now())) {
    case 'not-found':
      return { type: 'not_found' };
    case 'error':
      return { type: 'bank_error' };
    case 'timeout':
      return { type: 'hang' };
    default:
      return state.published(sendingBank, transRef) ? { type: 'success' } : { type: 'not_found' };
  }
}

const MALFORMED_BODY = '{"statusCode": "0000", "data": {"transRef": ';

/** A reply with its own HTTP status (slip APIs answer errors with 4xx); a bare body goes with 200. */
export class StatusReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/**
 * A provider's replies, in its own wire format; everything else is shared.
 * The slip APIs' outcomes are optional: a bank without them answers its
 * bank error instead.
 */
export interface VerifyReplies {
  /** Body sent with an HTTP error status (the behaviour knobs, a random failure). */
  httpError(): unknown;
  notFound(): unknown;
  bankError(): unknown;
  success(transaction: Record<string, unknown>): unknown;
  pending?(): unknown;
  duplicate?(transaction: Record<string, unknown>): unknown;
  quotaExceeded?(): unknown;
}

function sendReply(state: SimulatedBankState, res: ServerResponse, reply: unknown): void {
  state.lastReply = reply instanceof StatusReply ? reply.body : reply;
  if (reply instanceof StatusReply) sendJson(res, reply.status, reply.body);
  else sendJson(res, 200, reply);
}

/** Answers one verify call of a request the provider's responder already checked. */
export async function answerVerify(state: SimulatedBankState, res: ServerResponse, sendingBank: string, transRef: string, replies: VerifyReplies): Promise<void> {
  const outcome = await decideVerifyOutcome(state, res, sendingBank, transRef);
  switch (outcome?.type) {
    case undefined:
      return;
    case 'hang':
      return hangUntilGone(res);
    case 'http_error':
      return sendJson(res, outcome.status, replies.httpError());
    case 'malformed_json':
      return sendText(res, 200, MALFORMED_BODY);
    case 'not_found':
      return sendReply(state, res, replies.notFound());
    case 'bank_error':
      return sendReply(state, res, replies.bankError());
    case 'pending':
      return sendReply(state, res, replies.pending?.() ?? replies.bankError());
    case 'quota_exceeded':
      return sendReply(state, res, replies.quotaExceeded?.() ?? replies.bankError());
    case 'duplicate':
      state.spendQuota();
      return sendReply(state, res, (replies.duplicate ?? replies.success)(state.transaction(sendingBank, transRef)));
    case 'success':
      state.spendQuota();
      return sendReply(state, res, replies.success(state.transaction(sendingBank, transRef)));
  }
}
