// SlipOK's slip check API on node:http, read from SlipOK's documentation
// (slipok.com/api-documentation/check-slip/) and the public SDKs
// (PrakritManStudio/slipok-sdk, xhayper/node-slipok) independently of the
// adapter: the branch id in the path, the raw key in x-authorization, the
// QR text in `data`; answers `{success, data}` or `{success:false, code,
// message, data?}` with the documented codes (docs/banks.md#slipok).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isRecord, parseJson } from '../shared/bank-http.js';
import type { SimulatedBankState } from './bank-state.js';
import { readBody, sendJson } from './http-io.js';
import { answerVerify, slipNamedBy } from './verify-outcome.js';

/** The Thai texts SlipOK sends with each code (slipok-sdk's types). */
const TEXTS = {
  1000: 'กรุณาใส่ข้อมูล QR Code ให้ครบใน field data, files หรือ url',
  1001: 'ไม่พบข้อมูลสาขา กรุณาตรวจสอบไอดีสาขา',
  1002: 'Authorization Header ไม่ถูกต้อง',
  1004: 'Package ของคุณใช้เกินโควต้ามาแล้ว 400 บาท กรุณาต่อสมาชิกแพ็กเกจ',
  1008: 'QR ดังกล่าวไม่ใช่ QR สำหรับการตรวจสอบการชำระเงิน',
  1011: 'QR Code หมดอายุ หรือ ไม่มีรายการอยู่จริง',
} as const;

/** What the simulator reports as quota left when the package has no limit set. */
const UNLIMITED_QUOTA = 1_000_000;

const BANK_NAMES: Record<string, string> = { '002': 'ธนาคารกรุงเทพ', '014': 'ธนาคารไทยพาณิชย์' };

export function createSlipokResponder(state: SimulatedBankState): RequestListener {
  return (req, res) => {
    route(state, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { success: false, message: 'Internal Server Error' });
      else res.destroy();
    });
  };
}

async function route(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = /^\/api\/line\/apikey\/([^/]+)(\/quota)?$/.exec(new URL(req.url ?? '/', 'http://slipok').pathname);
  if (!match) return sendJson(res, 404, { success: false, message: 'Not found' });
  const [, branch, quota] = match;
  if (quota ? req.method !== 'GET' : req.method !== 'POST') return sendJson(res, 405, { success: false, message: 'Method not allowed' });
  const raw = quota ? '' : await readBody(req);
  if (decodeURIComponent(branch!) !== state.credentials.id) return sendJson(res, 400, refusal(1001));
  if (req.headers['x-authorization'] !== state.credentials.secret) {
    if (!quota) state.calls.unauthorized++;
    return sendJson(res, 401, refusal(1002));
  }
  return quota ? quotaLeft(state, res) : check(state, req, res, raw);
}

function quotaLeft(state: SimulatedBankState, res: ServerResponse): void {
  state.calls.quota++;
  if (state.behavior.answer === 'key_refused') return sendJson(res, 401, refusal(1002));
  sendJson(res, 200, { success: true, data: { quota: state.behavior.quota ?? UNLIMITED_QUOTA, specialQuota: 0, overQuota: 0 } });
}

async function check(state: SimulatedBankState, req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
  state.calls.verify++;
  const body = (req.headers['content-type'] ?? '').startsWith('application/json') ? parseJson(raw) : undefined;
  if (!isRecord(body) || typeof body.data !== 'string' || body.data === '') return sendJson(res, 400, refusal(1000));
  // `amount` asks SlipOK to compare amounts (1013), `log` to check the receiver and repeats (1012, 1014).
  if (body.amount !== undefined || body.log !== undefined) state.calls.providerChecks++;
  const named = slipNamedBy(body.data);
  if (!named) return sendJson(res, 400, refusal(1008));
  const { sendingBank } = named;
  return answerVerify(state, res, sendingBank, named.transRef, {
    httpError: () => ({ success: false, message: 'Service unavailable' }),
    notFound: () => refusal(1011),
    // No documented code is a plain server fault: a 500 without one.
    bankError: () => ({ success: false, message: 'Internal Server Error' }),
    success: (tx) => ({ success: true, data: slip(tx) }),
    pending: (minutes) => ({
      success: false,
      code: 1010,
      message: `เนื่องจากเป็นสลิปจากธนาคาร${BANK_NAMES[sendingBank] ?? sendingBank} กรุณารอการตรวจสอบสลิปหลังการโอนประมาณ ${minutes} นาที`,
      data: { qrcodeData: body.data, bankCode: sendingBank, bankName: BANK_NAMES[sendingBank] ?? '', delay: minutes },
    }),
    quotaExceeded: () => refusal(1004),
    keyRefused: () => refusal(1002),
    duplicate: (tx) => ({ success: false, code: 1012, message: `สลิปซ้ำ สลิปนี้เคยส่งเข้ามาในระบบเมื่อ ${new Date().toISOString()}`, data: slip(tx) }),
    status: { notFound: 400, bankError: 500, pending: 400, quotaExceeded: 400, keyRefused: 401, duplicate: 400 },
  });
}

function refusal(code: keyof typeof TEXTS): Record<string, unknown> {
  return { success: false, code, message: TEXTS[code] };
}

/** The check-slip table's `data`: KBank's record with numbers for amounts and the time also in UTC. */
function slip(tx: Record<string, unknown>): Record<string, unknown> {
  const { transDate, transTime } = tx;
  const local = typeof transDate === 'string' && typeof transTime === 'string' ? `${transDate.slice(0, 4)}-${transDate.slice(4, 6)}-${transDate.slice(6, 8)}T${transTime}+07:00` : '';
  const utc = new Date(local);
  return {
    success: true,
    message: '✅',
    rqUID: randomUUID(),
    ...tx,
    transTimestamp: Number.isNaN(utc.getTime()) ? null : utc.toISOString(),
    amount: Number(tx.amount),
    paidLocalAmount: Number(tx.paidLocalAmount ?? tx.amount),
    transFeeAmount: Number(tx.transFeeAmount ?? 0),
  };
}
