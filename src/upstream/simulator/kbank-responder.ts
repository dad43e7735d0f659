// A KBank slip verification API on node:http, strict about what a client
// must send (Basic auth, form grant, bearer token, rqUID/rqDt/data), so the
// adapter is tested against the protocol, not against itself.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isRecord, parseJson } from '../shared/bank-http.js';
import { bangkokIsoTime } from '../../domain/bangkok-time.js';
import {
  KBANK_NOT_FOUND_MESSAGE,
  KBANK_SUCCESS,
  KBANK_TOKEN_PATH,
  KBANK_VERIFY_PATH,
  type KbankTokenResponse,
  type KbankVerifyResponse,
} from '../kbank/kbank-protocol.js';
import type { SimulatedBankState } from './bank-state.js';
import { readBody, sendJson, waitUnlessGone } from './http-io.js';
import { answerVerify } from './verify-outcome.js';

/** The simulator's pick of codes for cases the tests need. */
const KBANK_SIM_CODES = {
  notFound: '8404',
  systemError: '9999',
  invalidRequest: '1000',
  unauthorized: '0401',
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BANGKOK_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+07:00$/;

export function createKbankResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { statusCode: KBANK_SIM_CODES.systemError, statusMessage: 'Internal error' });
      else res.destroy();
    });
  };
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://bank').pathname;
  if (req.method === 'POST' && path === KBANK_TOKEN_PATH) return token(state, req, res);
  if (req.method === 'POST' && path === KBANK_VERIFY_PATH) return verify(state, req, res);
  sendJson(res, 404, { statusCode: '404', statusMessage: 'Not found' });
}

async function token(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.token++;
  const body = await readBody(req);
  if (!(await waitUnlessGone(res, state.behavior.tokenLatencyMs))) return;
  const expected = `Basic ${Buffer.from(`${state.credentials.id}:${state.credentials.secret}`).toString('base64')}`;
  if (req.headers.authorization !== expected) {
    return sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
  }
  const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  if (!isForm || new URLSearchParams(body).get('grant_type') !== 'client_credentials') {
    return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type must be client_credentials' });
  }
  const issued = state.issueToken();
  const answer: KbankTokenResponse = { access_token: issued.token, token_type: 'Bearer', expires_in: String(issued.lifetimeSec) };
  sendJson(res, 200, answer);
}

async function verify(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.verify++;
  const raw = await readBody(req);
  if (!state.acceptsBearer(req.headers.authorization)) {
    state.calls.unauthorized++;
    return sendJson(res, 401, reply(KBANK_SIM_CODES.unauthorized, 'Invalid or expired access token'));
  }
  const body = parseJson(raw);
  const data = isRecord(body) && isRecord(body.data) ? body.data : undefined;
  const valid =
    (req.headers['content-type'] ?? '').startsWith('application/json') &&
    isRecord(body) &&
    typeof body.rqUID === 'string' &&
    UUID.test(body.rqUID) &&
    typeof body.rqDt === 'string' &&
    BANGKOK_ISO.test(body.rqDt) &&
    typeof data?.sendingBank === 'string' &&
    /^\d{3}$/.test(data.sendingBank) &&
    typeof data.transRef === 'string' &&
    data.transRef !== '';
  if (!valid || !data) return sendJson(res, 400, reply(KBANK_SIM_CODES.invalidRequest, 'Invalid request'));

  const sendingBank = data.sendingBank as string;
  const transRef = data.transRef as string;
  return answerVerify(state, res, sendingBank, transRef, {
    httpError: () => reply(KBANK_SIM_CODES.systemError, 'Service unavailable'),
    notFound: () => reply(KBANK_SIM_CODES.notFound, KBANK_NOT_FOUND_MESSAGE),
    bankError: () => reply(KBANK_SIM_CODES.systemError, 'System error, please try again later'),
    // KBank sends the amount as a number.
    success: (tx) => ({ ...reply(KBANK_SUCCESS, 'Success'), data: typeof tx.amount === 'string' ? { ...tx, amount: Number(tx.amount) } : tx }),
  });
}

function reply(statusCode: string, statusMessage: string): KbankVerifyResponse {
  return { rsUID: randomUUID(), rsDt: bangkokIsoTime(), statusCode, statusMessage };
}
