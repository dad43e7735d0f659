// What a simulated bank answers to one verify call, whatever its protocol:
// the behaviour knobs first, then the outcome a sandbox transRef asks for
// (`slipgate sandbox qr --outcome …` works against the simulator too).
import type { ServerResponse } from 'node:http';
import { sandboxOutcome } from '../sandbox/transaction.js';
import type { SimulatedBankState } from './bank-state.js';
import { waitUnlessGone } from './http-io.js';

export type VerifyOutcome =
  | { type: 'http_error'; status: number }
  | { type: 'malformed_json' }
  | { type: 'not_found' }
  | { type: 'bank_error' }
  | { type: 'hang' }
  | { type: 'success' };

/** Null when the client went away during the simulated latency. */
export async function decideVerifyOutcome(state: SimulatedBankState, res: ServerResponse, transRef: string): Promise<VerifyOutcome | null> {
  if (!(await waitUnlessGone(res, state.behavior.latencyMs))) return null;
  const { httpStatus, answer } = state.behavior;
  if (httpStatus !== null) return { type: 'http_error', status: httpStatus };
  if (state.randomFailure()) return { type: 'http_error', status: 500 };
  if (answer !== 'normal') return { type: answer };
  switch (sandboxOutcome(transRef)) {
    case 'not-found':
      return { type: 'not_found' };
    case 'error':
      return { type: 'bank_error' };
    case 'timeout':
      return { type: 'hang' };
    default:
      return { type: 'success' };
  }
}

export const MALFORMED_BODY = '{"statusCode": "0000", "data": {"transRef": ';
