// RDCW Slip Verify on node:http, read from the public SDKs
// (PrakritManStudio/rdcw-slip, ArtifactyNight/node-rdcw-slipverify)
// independently of the adapter: HTTP Basic, `{"payload": <QR text>}` to
// /v1/inquiry (or /v2/inquiry), a 2xx `{discriminator, valid, data, quota,
// subscription, isCached}` or a non-2xx `{code, message}`
// (docs/banks.md#rdcw-slip-verify). Its pick where the SDKs say nothing: the slip flat
// under `data` with the amount as text (the SDKs differ), the HTTP statuses
// of the error codes, a 401 without a code for refused credentials.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isRecord, parseJson } from '../shared/bank-http.js';
import type { SimulatedBankState } from './bank-state.js';
import { readBody, sendJson } from './http-io.js';
import { answerVerify, slipNamedBy } from './verify-outcome.js';

const MESSAGES = {
  0: 'Invalid Data',
  10002: 'This is not a Slip Verify API QR',
  20001: 'Unable to connect to Bank API at this moment',
  21001: 'Please renew your subscription before using API',
} as const;

/** The subscription's size when no quota is set (then it never runs out). */
const UNLIMITED_LIMIT = 1_000_000;

export function createRdcwResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  };
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://rdcw').pathname;
  if (req.method !== 'POST' || (path !== '/v1/inquiry' && path !== '/v2/inquiry')) return sendJson(res, 404, { message: 'Not Found' });
  state.calls.verify++;
  const raw = await readBody(req);
  const expected = `Basic ${Buffer.from(`${state.credentials.id}:${state.credentials.secret}`).toString('base64')}`;
  if (req.headers.authorization !== expected) {
    state.calls.unauthorized++;
    return sendJson(res, 401, { message: 'Unauthorized' });
  }
  const body = (req.headers['content-type'] ?? '').startsWith('application/json') ? parseJson(raw) : undefined;
  if (!isRecord(body) || typeof body.payload !== 'string' || body.payload === '') return sendJson(res, 400, error(0));
  // RDCW has no server-side checks; any other field is a client asking for one.
  if (Object.keys(body).some((k) => k !== 'payload')) state.calls.providerChecks++;
  const slip = slipNamedBy(body.payload);
  if (!slip) return sendJson(res, 400, error(10002));
  const { sendingBank, transRef } = slip;
  const answer = (valid: boolean, data: unknown, isCached = false) => ({
    discriminator: `${sendingBank}.${transRef}`,
    valid,
    data,
    quota: quota(state),
    subscription: { id: 'sim-subscription', postpaid: false },
    isCached,
  });
  return answerVerify(state, res, sendingBank, transRef, {
    httpError: () => ({ message: 'Service Unavailable' }),
    // RDCW names no "not found" code: the SDKs read an unconfirmed slip as valid:false in a 2xx.
    notFound: () => answer(false, null),
    bankError: () => ({ message: 'Internal Server Error' }),
    success: (tx) => answer(true, tx),
    pending: () => error(20001),
    quotaExceeded: () => error(21001),
    keyRefused: () => ({ message: 'Unauthorized' }),
    duplicate: (tx) => answer(true, tx, true),
    status: { bankError: 500, pending: 503, quotaExceeded: 403, keyRefused: 401 },
  });
}

function error(code: keyof typeof MESSAGES): Record<string, unknown> {
  return { code, message: MESSAGES[code] };
}

/** Every answer's `quota`: this call's cost, what was used, the subscription's size. */
function quota(state: SimulatedBankState): Record<string, number> {
  const used = state.calls.verify;
  return { cost: 1, usage: used, limit: used + (state.behavior.quota ?? UNLIMITED_LIMIT) };
}
