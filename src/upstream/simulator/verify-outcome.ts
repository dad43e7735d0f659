// What a simulated bank answers to one verify call, whatever its protocol:
// the behaviour knobs first, then the outcome a sandbox transRef asks for
// (`slipgate sandbox qr --outcome …` works against the simulator too).
import type { ServerResponse } from 'node:http';
import { parseSlipQr, writtenReference } from '../../domain/verify/slip-qr.js';
import { sandboxAnswer } from '../sandbox/transaction.js';
import type { RawReply, SimulatedBankState } from './bank-state.js';
import { hangUntilGone, sendJson, sendText, waitUnlessGone } from './http-io.js';

type VerifyOutcome =
  | { type: 'http_error'; status: number }
  | { type: 'malformed_json' }
  | { type: 'endless_body' }
  | { type: 'not_found' }
  | { type: 'bank_error' }
  | { type: 'hang' }
  | { type: 'success' }
  | { type: 'pending' }
  | { type: 'quota_exceeded' }
  | { type: 'key_refused' }
  | { type: 'duplicate' }
  | { type: 'raw'; reply: RawReply };

/**
 * The slip a slip API is sent as QR text, its reference as the QR writes it:
 * a bank knows its transfer by the spelling it printed (the sandbox's details
 * are in its letters' case). Null for a QR that is not a slip.
 */
export function slipNamedBy(qrText: string): { sendingBank: string; transRef: string } | null {
  const qr = parseSlipQr(qrText);
  return qr.ok ? { sendingBank: qr.slip.sendingBank, transRef: writtenReference(qrText, qr.slip) } : null;
}

/** Null when the client went away during the simulated latency. */
async function decideVerifyOutcome(state: SimulatedBankState, res: ServerResponse, sendingBank: string, transRef: string): Promise<VerifyOutcome | null> {
  if (!(await waitUnlessGone(res, state.behavior.latencyMs))) return null;
  const { httpStatus, answer, reply } = state.behavior;
  if (reply !== null) return { type: 'raw', reply };
  if (httpStatus !== null) return { type: 'http_error', status: httpStatus };
  if (state.randomFailure()) return { type: 'http_error', status: 500 };
  if (answer !== 'normal') return { type: answer };
  switch (sandboxAnswer(transRef, state.now())) {
    case 'not-found':
      return { type: 'not_found' };
    case 'error':
      return { type: 'bank_error' };
    case 'timeout':
      return { type: 'hang' };
    default:
      if (!state.published(sendingBank, transRef)) return { type: 'not_found' };
      return state.spendQuota() ? { type: 'success' } : { type: 'quota_exceeded' };
  }
}

const MALFORMED_BODY = '{"statusCode": "0000", "data": {"transRef": ';

/** A provider's replies, in its own wire format; everything else is shared. */
export interface VerifyReplies {
  /** Body sent with an HTTP error status (the behaviour knobs, a random failure). */
  httpError(): unknown;
  notFound(): unknown;
  bankError(): unknown;
  success(transaction: Record<string, unknown>): unknown;
  /** Slip APIs (a bank without them answers not found, an error, or the slip): "ask again in `minutes`". */
  pending?(minutes: number): unknown;
  quotaExceeded?(): unknown;
  keyRefused?(): unknown;
  /** The slip marked as seen before. */
  duplicate?(transaction: Record<string, unknown>): unknown;
  /** HTTP status of the replies that are not a success; 200 when not named. */
  status?: Partial<Record<'notFound' | 'bankError' | 'pending' | 'quotaExceeded' | 'keyRefused' | 'duplicate', number>>;
}

/** Answers one verify call of a request the provider's responder already checked. */
export async function answerVerify(state: SimulatedBankState, res: ServerResponse, sendingBank: string, transRef: string, replies: VerifyReplies): Promise<void> {
  const outcome = await decideVerifyOutcome(state, res, sendingBank, transRef);
  const status = replies.status ?? {};
  const tx = () => state.transaction(sendingBank, transRef);
  switch (outcome?.type) {
    case undefined:
      return;
    case 'hang':
      return hangUntilGone(res);
    case 'raw':
      return sendJson(res, outcome.reply.status, outcome.reply.body);
    case 'http_error':
      return sendJson(res, outcome.status, replies.httpError());
    case 'malformed_json':
      return sendText(res, 200, MALFORMED_BODY);
    case 'endless_body':
      return streamForever(res);
    case 'not_found':
      return sendJson(res, status.notFound ?? 200, replies.notFound());
    case 'bank_error':
      return sendJson(res, status.bankError ?? 200, replies.bankError());
    case 'success':
      return sendJson(res, 200, replies.success(tx()));
    case 'pending':
      if (!replies.pending) return sendJson(res, status.notFound ?? 200, replies.notFound());
      return sendJson(res, status.pending ?? 200, replies.pending(state.behavior.pendingMinutes));
    case 'quota_exceeded':
      if (!replies.quotaExceeded) return sendJson(res, status.bankError ?? 200, replies.bankError());
      return sendJson(res, status.quotaExceeded ?? 200, replies.quotaExceeded());
    case 'key_refused':
      if (!replies.keyRefused) return sendJson(res, status.bankError ?? 200, replies.bankError());
      return sendJson(res, status.keyRefused ?? 200, replies.keyRefused());
    case 'duplicate':
      if (!replies.duplicate) return sendJson(res, 200, replies.success(tx()));
      return sendJson(res, status.duplicate ?? 200, replies.duplicate(tx()));
  }
}

/** A 200 whose JSON never closes: 64 KB chunks as fast as the client reads, until it hangs up. */
async function streamForever(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = `{"data":"${'x'.repeat(64 * 1024)}`;
  while (!res.destroyed) {
    if (res.write(chunk)) continue;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
  }
}
