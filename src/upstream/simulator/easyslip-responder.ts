// EasySlip API v2 on node:http, written from the public docs alone
// (https://easyslip-document.cl1.easythunder.com/en/v2, …/en/v2/verify/bank,
// …/en/v2/info, …/en/reference/error-codes) and sharing nothing with the
// adapter, so a misreading on either side shows in the tests. It answers
// from the shared simulated bank state: the slip the QR text names, the
// outcome a tester chose, the quota left.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { bankShortName } from '../../domain/banks.js';
import type { RawParty } from '../../domain/types.js';
import { isRecord, parseJson } from '../shared/bank-http.js';
import type { RawReply, SimulatedBankState } from './bank-state.js';
import { readBodyBytes, readForm, readPictureQr, sendJson } from './http-io.js';
import { answerVerify, slipNamedBy } from './verify-outcome.js';

/** "Image exceeds 4MB limit"; the form around it may add a little. */
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const MAX_REQUEST_BYTES = MAX_IMAGE_BYTES + 64 * 1024;

function fail(status: number, code: string, message: string): RawReply {
  return { status, body: { success: false, error: { code, message } } };
}

const ERRORS = {
  missingKey: () => fail(401, 'MISSING_API_KEY', 'Authorization header is required'),
  invalidKey: () => fail(401, 'INVALID_API_KEY', 'The provided API key is invalid'),
  quota: () => fail(403, 'QUOTA_EXCEEDED', 'Your API quota has been exceeded'),
  validation: () => fail(400, 'VALIDATION_ERROR', 'Validation failed'),
  slipNotFound: () => fail(404, 'SLIP_NOT_FOUND', 'Slip not found or invalid'),
  // Not in the official table: seen in community code and the Python SDK's SlipPendingError; status unknown.
  pending: () => fail(400, 'SLIP_PENDING', 'Slip is pending, please retry later'),
  apiServer: () => fail(500, 'API_SERVER_ERROR', 'External API error'),
  internal: () => fail(500, 'INTERNAL_SERVER_ERROR', 'Internal server error'),
  notFound: () => fail(404, 'NOT_FOUND', 'Resource not found'),
};

export function createEasyslipResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) send(res, ERRORS.internal());
      else res.destroy();
    });
  };
}

function send(res: ServerResponse, reply: RawReply): void {
  sendJson(res, reply.status, reply.body);
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://easyslip').pathname;
  if (req.method === 'POST' && path === '/v2/verify/bank') return verify(state, req, res);
  if (req.method === 'GET' && path === '/v2/info') return info(state, req, res);
  send(res, ERRORS.notFound());
}

/** `Authorization: Bearer <API key>`, the branch's key. */
function authError(state: SimulatedBankState, req: IncomingMessage): RawReply | undefined {
  const header = req.headers.authorization;
  if (header === undefined || header === '') return ERRORS.missingKey();
  return header === `Bearer ${state.credentials.secret}` ? undefined : ERRORS.invalidKey();
}

async function verify(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.verify++;
  const body = await readBodyBytes(req, MAX_REQUEST_BYTES);
  const refused = authError(state, req);
  if (refused) {
    state.calls.unauthorized++;
    return send(res, refused);
  }
  const input = await readInput(req, body);
  if ('reply' in input) return send(res, input.reply);
  if (input.asksChecks) state.calls.providerChecks++;
  const slip = slipNamedBy(input.qr);
  if (!slip) return send(res, ERRORS.slipNotFound());
  const { sendingBank, transRef } = slip;
  return answerVerify(state, res, sendingBank, transRef, {
    httpError: () => ERRORS.internal().body,
    notFound: () => ERRORS.slipNotFound().body,
    bankError: () => ERRORS.apiServer().body,
    // EasySlip names no delay: the minutes asked for are not said.
    pending: () => ERRORS.pending().body,
    quotaExceeded: () => ERRORS.quota().body,
    keyRefused: () => ERRORS.invalidKey().body,
    success: (tx) => success(tx, input.qr, false),
    duplicate: (tx) => success(tx, input.qr, true),
    status: { notFound: 404, bankError: 500, pending: 400, quotaExceeded: 403, keyRefused: 401 },
  });
}

type Input = { qr: string; asksChecks: boolean } | { reply: RawReply };

/**
 * Exactly one of payload, image, base64 or url. JSON carries payload (1-128
 * characters); multipart carries the picture as `image` (the docs) or `file`
 * (a community snippet; accepted too), whose QR is read here.
 */
async function readInput(req: IncomingMessage, body: Buffer): Promise<Input> {
  const form = await readForm(req, body);
  if (form) {
    const picture = form.get('image') ?? form.get('file');
    if (!(picture instanceof Blob)) return { reply: ERRORS.validation() };
    if (picture.size > MAX_IMAGE_BYTES) return { reply: fail(400, 'IMAGE_SIZE_TOO_LARGE', 'Image exceeds 4MB limit') };
    const qr = await readPictureQr(picture);
    if (qr === null) return { reply: ERRORS.slipNotFound() };
    return { qr, asksChecks: ['checkDuplicate', 'matchAmount', 'matchAccount'].some((f) => form.has(f)) };
  }
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return { reply: ERRORS.validation() };
  const json = parseJson(body.toString('utf8'));
  if (!isRecord(json)) return { reply: ERRORS.validation() };
  const inputs = ['payload', 'image', 'base64', 'url'].filter((f) => json[f] !== undefined);
  const payload = json.payload;
  if (inputs.length !== 1 || typeof payload !== 'string' || payload.length < 1 || payload.length > 128) return { reply: ERRORS.validation() };
  return { qr: payload, asksChecks: json.checkDuplicate !== undefined || json.matchAmount !== undefined || json.matchAccount !== undefined };
}

/** The bank's record as EasySlip v2 shows it: `data` with `rawSlip`, the time ISO 8601 with +07:00, amounts in baht. */
function success(tx: Record<string, unknown>, qr: string, isDuplicate: boolean): unknown {
  const amount = Number(tx.amount);
  const date = typeof tx.transDate === 'string' && typeof tx.transTime === 'string' ? `${tx.transDate.slice(0, 4)}-${tx.transDate.slice(4, 6)}-${tx.transDate.slice(6, 8)}T${tx.transTime}+07:00` : tx.transDate;
  return {
    success: true,
    message: 'Operation completed successfully',
    data: {
      isDuplicate,
      matchedAccount: null,
      amountInSlip: amount,
      rawSlip: {
        payload: qr,
        transRef: tx.transRef,
        date,
        countryCode: tx.countryCode ?? 'TH',
        amount: { amount, local: { amount: 0, currency: '' } },
        fee: Number(tx.transFeeAmount ?? 0),
        ref1: tx.ref1 ?? '',
        ref2: tx.ref2 ?? '',
        ref3: tx.ref3 ?? '',
        sender: party(tx.sender, tx.sendingBank),
        receiver: { ...party(tx.receiver, tx.receivingBank), ...(tx.toMerchantId ? { merchantId: tx.toMerchantId } : {}) },
      },
    },
  };
}

function party(p: unknown, bankId: unknown): Record<string, unknown> {
  const raw = (isRecord(p) ? p : {}) as RawParty;
  const account: Record<string, unknown> = { name: { th: raw.displayName ?? '', en: raw.name ?? '' } };
  if (raw.account) account.bank = { type: raw.account.type, account: raw.account.value };
  if (raw.proxy) account.proxy = { type: raw.proxy.type, account: raw.proxy.value };
  const id = String(bankId ?? '');
  return { bank: { id, name: bankShortName(id), short: bankShortName(id) }, account };
}

/** GET /v2/info: the application's quota (max/remaining null: no limit), the branch, the account's credit. */
async function info(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  state.calls.quota++;
  const refused = authError(state, req);
  if (refused) return send(res, refused);
  // The key refused as a whole: the quota call too (as --answer key-refused promises).
  if (state.behavior.answer === 'key_refused') return send(res, ERRORS.invalidKey());
  const remaining = state.behavior.quota;
  const used = state.calls.verify - state.calls.unauthorized;
  sendJson(res, 200, {
    success: true,
    message: 'Operation completed successfully',
    data: {
      application: {
        name: 'slipgate simulator',
        autoRenew: { expired: false, quota: false, createdAt: '2025-01-01T00:00:00+07:00', expiresAt: '2099-01-01T00:00:00+07:00' },
        quota: { used, max: remaining === null ? null : used + remaining, remaining, totalUsed: used },
      },
      branch: { name: state.credentials.id, isActive: true, quota: { used, totalUsed: used } },
      account: { email: 'simulator@example.com', credit: 0 },
      product: { name: 'simulator' },
    },
  });
}
