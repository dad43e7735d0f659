// An SCB partner API (token + slip verification) on node:http, strict about
// the headers SCB requires on every call (resourceOwnerId, requestUId,
// bearer token) so the adapter is tested against the protocol.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isRecord, parseJson } from '../shared/bank-http.js';
import { SCB_NOT_FOUND_MESSAGE, SCB_SUCCESS, SCB_TOKEN_PATH, SCB_VERIFY_PATH, type ScbTokenResponse, type ScbVerifyResponse } from '../scb/scb-protocol.js';
import type { SimulatedBankState } from './bank-state.js';
import { readBody, sendJson, waitUnlessGone } from './http-io.js';
import { answerVerify } from './verify-outcome.js';

/** The simulator's pick of codes for cases the tests need. */
const SCB_SIM_CODES = {
  notFound: 4101,
  systemError: 9700,
  invalidParameter: 4001,
  unauthorized: 9300,
} as const;

export function createScbResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, status(SCB_SIM_CODES.systemError, 'Internal error'));
      else res.destroy();
    });
  };
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bank');
  if (req.method === 'POST' && url.pathname === SCB_TOKEN_PATH) return token(state, req, res);
  const prefix = `${SCB_VERIFY_PATH}/`;
  if (req.method === 'GET' && url.pathname.startsWith(prefix) && url.pathname.length > prefix.length) {
    return verify(state, req, res, decodeURIComponent(url.pathname.slice(prefix.length)), url.searchParams.get('sendingBank'));
  }
  sendJson(res, 404, status(404, 'Not found'));
}

/** Headers SCB wants on every call. */
function partnerHeadersOk(state: SimulatedBankState, req: IncomingMessage): boolean {
  const requestUId = req.headers.requestuid;
  return req.headers.resourceownerid === state.credentials.id && typeof requestUId === 'string' && requestUId !== '';
}

async function token(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.token++;
  const body = parseJson(await readBody(req));
  if (!(await waitUnlessGone(res, state.behavior.tokenLatencyMs))) return;
  const credentialsOk =
    partnerHeadersOk(state, req) &&
    isRecord(body) &&
    body.applicationKey === state.credentials.id &&
    body.applicationSecret === state.credentials.secret;
  if (!credentialsOk) return sendJson(res, 401, status(SCB_SIM_CODES.unauthorized, 'Unauthorized'));
  const issued = state.issueToken();
  const answer: ScbTokenResponse = {
    ...status(SCB_SUCCESS, 'Success'),
    data: {
      accessToken: issued.token,
      tokenType: 'Bearer',
      expiresIn: issued.lifetimeSec,
      expiresAt: Math.floor(Date.now() / 1000) + issued.lifetimeSec,
    },
  };
  sendJson(res, 200, answer);
}

async function verify(
  state: SimulatedBankState,
  req: IncomingMessage,
  res: ServerResponse,
  transRef: string,
  sendingBank: string | null,
): Promise<void> {
  state.calls.verify++;
  if (!state.acceptsBearer(req.headers.authorization) || !partnerHeadersOk(state, req)) {
    state.calls.unauthorized++;
    return sendJson(res, 401, status(SCB_SIM_CODES.unauthorized, 'Invalid access token'));
  }
  if (!sendingBank || !/^\d{3}$/.test(sendingBank)) {
    return sendJson(res, 400, status(SCB_SIM_CODES.invalidParameter, 'Invalid parameter: sendingBank'));
  }
  return answerVerify(state, res, sendingBank, transRef, {
    httpError: () => status(SCB_SIM_CODES.systemError, 'Service unavailable'),
    notFound: () => status(SCB_SIM_CODES.notFound, SCB_NOT_FOUND_MESSAGE),
    bankError: () => status(SCB_SIM_CODES.systemError, 'Unexpected error has occurred'),
    success: (tx) => ({ ...status(SCB_SUCCESS, 'Success'), data: tx }),
  });
}

function status(code: number, description: string): Pick<ScbVerifyResponse, 'status'> {
  return { status: { code, description } };
}
