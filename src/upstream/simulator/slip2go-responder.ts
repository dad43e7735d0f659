// Slip2Go (doc v1.2) on node:http, written from the public copies of its
// docs alone (sahaphakhun/pu-star-site slip2go.md, tkhongsap/line-lender-app-poc
// docs/Slip2Go+API+Documentation.md, anucha1993/crm-backend slip2go.md) and
// sharing nothing with the adapter. Result codes come with HTTP 200, errors
// with their 4xx/5xx; it answers from the shared simulated bank state.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { bankShortName } from '../../domain/banks.js';
import type { RawParty } from '../../domain/types.js';
import { isRecord, parseJson } from '../shared/bank-http.js';
import type { RawReply, SimulatedBankState } from './bank-state.js';
import { readBodyBytes, readForm, readPictureQr, sendJson } from './http-io.js';
import { answerVerify, slipNamedBy } from './verify-outcome.js';

const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** What the simulator reports as the package when the tester set no quota. */
const UNLIMITED_PACKAGE = 1_000_000;

function reply(status: number, code: string, message: string): RawReply {
  return { status, body: { code, message } };
}

const ERRORS = {
  qrIncorrect: () => reply(400, '400001', 'QR Code is incorrect'),
  fileIncorrect: () => reply(400, '400002', 'File is Incorrect'),
  requestInvalid: () => reply(400, '400400', 'Request object is Invalid'),
  tokenMismatch: () => reply(401, '401001', 'Token Mismatch'),
  quota: () => reply(401, '401005', 'Insufficient Quota'),
  internal: () => reply(500, '500500', 'Internal Server Error'),
  notFound: () => reply(200, '200404', 'Slip Not Found'),
  // Seen only in community code: a bank error to retry later.
  pending: () => reply(200, '200502', 'Bank error, please try again'),
};

export function createSlip2goResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) send(res, ERRORS.internal());
      else res.destroy();
    });
  };
}

function send(res: ServerResponse, r: RawReply): void {
  sendJson(res, r.status, r.body);
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://slip2go').pathname;
  if (req.method === 'POST' && path === '/api/verify-slip/qr-code/info') return verify(state, req, res, 'qr');
  if (req.method === 'POST' && path === '/api/verify-slip/qr-image/info') return verify(state, req, res, 'image');
  if (req.method === 'GET' && path === '/api/account/info') return accountInfo(state, req, res);
  sendJson(res, 404, { code: '404000', message: 'Not Found' });
}

/** `Authorization: Bearer {apiSecret}`; one integration sends the bare secret, accepted too. */
function authorized(state: SimulatedBankState, req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  return header === `Bearer ${state.credentials.secret}` || header === state.credentials.secret;
}

async function verify(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse, mode: 'qr' | 'image'): Promise<void> {
  state.calls.verify++;
  const body = await readBodyBytes(req, MAX_REQUEST_BYTES);
  if (!authorized(state, req)) {
    state.calls.unauthorized++;
    return send(res, ERRORS.tokenMismatch());
  }
  const input = mode === 'qr' ? readQrRequest(req, body) : await readImageRequest(req, body);
  if ('reply' in input) return send(res, input.reply);
  if (input.asksChecks) state.calls.providerChecks++;
  const slip = slipNamedBy(input.qr);
  if (!slip) return send(res, ERRORS.qrIncorrect());
  const { sendingBank, transRef } = slip;
  return answerVerify(state, res, sendingBank, transRef, {
    httpError: () => ERRORS.internal().body,
    // Result codes come with HTTP 200 (the default), errors with their own status.
    notFound: () => ERRORS.notFound().body,
    bankError: () => ERRORS.internal().body,
    // Slip2Go names no delay: the minutes asked for are not said.
    pending: () => ERRORS.pending().body,
    quotaExceeded: () => ERRORS.quota().body,
    keyRefused: () => ERRORS.tokenMismatch().body,
    success: (tx) => ({ code: '200000', message: 'Slip found', data: slipData(tx, input.qr) }),
    duplicate: (tx) => ({ code: '200501', message: 'Slip is Duplicated', data: slipData(tx, input.qr) }),
    status: { bankError: 500, quotaExceeded: 401, keyRefused: 401 },
  });
}

type Input = { qr: string; asksChecks: boolean } | { reply: RawReply };

/**
 * `{"payload": {"qrCode": …, "checkCondition"?: …}}`. The doc's own example
 * nests checkCondition in payload, another of its sections puts it beside
 * payload: both count.
 */
function readQrRequest(req: IncomingMessage, body: Buffer): Input {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return { reply: ERRORS.requestInvalid() };
  const json = parseJson(body.toString('utf8'));
  const payload = isRecord(json) && isRecord(json.payload) ? json.payload : undefined;
  if (!payload || typeof payload.qrCode !== 'string' || payload.qrCode === '') return { reply: ERRORS.requestInvalid() };
  return { qr: payload.qrCode, asksChecks: payload.checkCondition !== undefined || (isRecord(json) && json.checkCondition !== undefined) };
}

/** multipart: the picture as `file` (png, jpg, jpeg), conditions as an optional `payload` part of JSON. */
async function readImageRequest(req: IncomingMessage, body: Buffer): Promise<Input> {
  const form = await readForm(req, body);
  const file = form?.get('file');
  if (!form || !(file instanceof Blob)) return { reply: ERRORS.requestInvalid() };
  const qr = await readPictureQr(file);
  if (qr === null) return { reply: ERRORS.fileIncorrect() };
  return { qr, asksChecks: form.has('payload') };
}

/** The slip as Slip2Go shows it: dateTime in UTC with "Z", the amount a number in baht, one name per party. */
function slipData(tx: Record<string, unknown>, qr: string): Record<string, unknown> {
  const d = tx.transDate;
  // A rewritten record that is not the banks' (a number for the date) goes out as it is: a faulty provider.
  const at = typeof d === 'string' && typeof tx.transTime === 'string' ? Date.parse(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${tx.transTime}+07:00`) : Number.NaN;
  return {
    referenceId: randomUUID(),
    decode: qr,
    transRef: tx.transRef,
    dateTime: Number.isFinite(at) ? new Date(at).toISOString() : tx.transDate,
    amount: Number(tx.amount),
    ref1: tx.ref1 ?? '',
    ref2: tx.ref2 ?? '',
    ref3: tx.ref3 ?? '',
    receiver: party(tx.receiver, tx.receivingBank),
    sender: party(tx.sender, tx.sendingBank),
  };
}

function party(p: unknown, bankId: unknown): Record<string, unknown> {
  const raw = (isRecord(p) ? p : {}) as RawParty;
  const id = String(bankId ?? '');
  return {
    account: {
      name: raw.displayName || raw.name || '',
      bank: raw.account ? { account: raw.account.value } : null,
      proxy: raw.proxy ? { type: raw.proxy.type, account: raw.proxy.value } : null,
    },
    bank: { id, name: bankShortName(id) },
  };
}

/** GET /account/info: the shop's package and what is left of it. */
async function accountInfo(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.quota++;
  if (!authorized(state, req)) return send(res, ERRORS.tokenMismatch());
  // The key refused as a whole: the quota call too (as --answer key-refused promises).
  if (state.behavior.answer === 'key_refused') return send(res, ERRORS.tokenMismatch());
  const used = state.calls.verify - state.calls.unauthorized;
  const remaining = state.behavior.quota ?? Math.max(0, UNLIMITED_PACKAGE - used);
  sendJson(res, 200, {
    code: '200001',
    message: 'Get Info Success',
    data: {
      shopName: 'slipgate simulator',
      package: 'SIMULATOR',
      packageExpiredDate: '2099-01-01T00:00:00.000Z',
      quotaLimit: used + remaining,
      quotaRemaining: remaining,
      creditRemaining: 0,
      autoRenewalPackage: false,
      checkSlipByCredit: false,
    },
  });
}
