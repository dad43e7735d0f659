// The slip API providers against their simulators (slip-api-conformance.ts),
// each with its documented replies: every code of the providers' public
// sources lands in one class (docs/banks.md).
import { slipApiConformance, type Landing } from './slip-api-conformance.js';

const NOT_FOUND: Landing = { ok: false, kind: 'slip_not_found' };
const UNUSABLE: Landing = { ok: false, kind: 'upstream_unavailable', unusable: true };
const ERROR: Landing = { ok: false, kind: 'upstream_error' };
const SUCCESS: Landing = { ok: true };

slipApiConformance({
  provider: 'slipok',
  dataOf: (answer) => answer.data,
  pendingRetryMs: (minutes) => minutes * 60_000,
  replies: (slip) => {
    const refusal = (code: number | string, status = 400, data?: unknown) => ({ status, body: { success: false, code, message: 'ข้อความ', ...(data === undefined ? {} : { data }) } });
    const withSlip = { ...slip, amount: Number(slip.amount), success: true, message: '✅' };
    return [
      { name: 'success', reply: { status: 200, body: { success: true, data: withSlip } }, lands: SUCCESS },
      { name: '1000 no QR sent', reply: refusal(1000), lands: ERROR },
      ...[1001, 1003, 1004, 1015].map((code) => ({ name: `${code}`, reply: refusal(code), lands: UNUSABLE })),
      { name: '1002 key refused, status 401', reply: refusal(1002, 401), lands: UNUSABLE },
      { name: '1004 as text', reply: refusal('1004'), lands: UNUSABLE },
      ...[1005, 1006, 1007, 1008, 1011].map((code) => ({ name: `${code}`, reply: refusal(code), lands: NOT_FOUND })),
      { name: '1009 bank down', reply: refusal(1009), lands: { ...NOT_FOUND, retryAfterMs: 15 * 60_000 } },
      { name: '1010 with delay', reply: refusal(1010, 400, { qrcodeData: 'x', bankCode: '002', bankName: 'BBL', delay: 3 }), lands: { ...NOT_FOUND, retryAfterMs: 180_000 } },
      { name: '1010 without delay', reply: refusal(1010), lands: { ...NOT_FOUND, retryAfterMs: 300_000 } },
      { name: '1010 with a text delay', reply: refusal(1010, 400, { delay: 'soon' }), lands: { ...NOT_FOUND, retryAfterMs: 300_000 } },
      { name: '1012 seen before with data', reply: refusal(1012, 400, withSlip), lands: SUCCESS },
      { name: '1012 without data', reply: refusal(1012), lands: ERROR },
      { name: '1013 with data', reply: refusal(1013, 400, withSlip), lands: SUCCESS },
      { name: '1014 with data', reply: refusal(1014, 400, withSlip), lands: SUCCESS },
      { name: 'an undocumented code', reply: refusal(1099), lands: ERROR },
      { name: 'a 401 without a code', reply: { status: 401, body: { message: 'no' } }, lands: UNUSABLE },
      { name: 'a 502 without a code', reply: { status: 502, body: 'Bad Gateway' }, lands: ERROR },
      { name: 'success false without a code', reply: { status: 200, body: { success: false } }, lands: ERROR },
      { name: 'success without data', reply: { status: 200, body: { success: true } }, lands: ERROR },
      { name: 'a list', reply: { status: 200, body: [1, 2] }, lands: ERROR },
    ];
  },
});

slipApiConformance({
  provider: 'rdcw',
  dataOf: (answer) => answer.data,
  pendingRetryMs: () => 60_000,
  replies: (slip) => {
    const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({
      status: 200,
      body: { discriminator: `${slip.sendingBank}.${slip.transRef}`, valid: true, data, quota: { cost: 1, usage: 3, limit: 10 }, subscription: { id: 7, postpaid: false }, isCached: false, ...extra },
    });
    const error = (code: number, status = 400) => ({ status, body: { code, message: 'text' } });
    const kbankEnvelope = { rqUID: 'x', kbankTxnId: 'y', statusCode: '0000', statusMessage: 'SUCCESS', data: { ...slip, amount: Number(slip.amount) } };
    return [
      { name: 'flat, amount as text', reply: ok(slip), lands: SUCCESS },
      { name: 'flat, amount as a number', reply: ok({ ...slip, amount: Number(slip.amount) }), lands: SUCCESS },
      { name: 'in the KBank envelope', reply: ok(kbankEnvelope), lands: SUCCESS },
      { name: 'isCached', reply: ok(slip, { isCached: true }), lands: SUCCESS },
      { name: 'valid false', reply: ok(slip, { valid: false }), lands: NOT_FOUND },
      { name: 'valid as text', reply: ok(slip, { valid: 'true' }), lands: ERROR },
      { name: 'valid without data', reply: ok(null), lands: ERROR },
      { name: '0 invalid data', reply: error(0), lands: ERROR },
      ...[10001, 10002, 1004, 1005, 1006].map((code) => ({ name: `${code}`, reply: error(code), lands: NOT_FOUND })),
      ...[20001, 20002].map((code) => ({ name: `${code}`, reply: error(code, 503), lands: { ...NOT_FOUND, retryAfterMs: 60_000 } })),
      ...[21001, 40000, 1007].map((code) => ({ name: `${code}`, reply: error(code, 403), lands: UNUSABLE })),
      { name: '20001 with HTTP 200', reply: error(20001, 200), lands: { ...NOT_FOUND, retryAfterMs: 60_000 } },
      { name: 'an undocumented code', reply: error(12345), lands: ERROR },
      { name: 'a 401 without a code', reply: { status: 401, body: { message: 'Unauthorized' } }, lands: UNUSABLE },
      { name: 'a 500 without a code', reply: { status: 500, body: 'oops' }, lands: ERROR },
    ];
  },
});
