// The slip API providers (SlipOK, RDCW, EasySlip, Slip2Go) against their
// simulators (slip-api-conformance.ts), each with its documented replies:
// every code of the providers' public sources lands in one class
// (docs/banks.md).
import { slipApiConformance, type Landing } from './slip-api-conformance.js';

const NOT_FOUND: Landing = { ok: false, kind: 'slip_not_found' };
const UNUSABLE: Landing = { ok: false, kind: 'upstream_unavailable', unusable: true };
const ERROR: Landing = { ok: false, kind: 'upstream_error' };
const SUCCESS: Landing = { ok: true };

slipApiConformance({
  provider: 'slipok',
  dataOf: (answer) => answer.data,
  namesInEnglish: true,
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
  namesInEnglish: true,
  pendingRetryMs: () => undefined,
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
      ...[20001, 20002].map((code) => ({ name: `${code}`, reply: error(code, 503), lands: NOT_FOUND })),
      ...[21001, 40000, 1007].map((code) => ({ name: `${code}`, reply: error(code, 403), lands: UNUSABLE })),
      { name: '20001 with HTTP 200', reply: error(20001, 200), lands: NOT_FOUND },
      { name: 'an undocumented code', reply: error(12345), lands: ERROR },
      { name: 'a 401 without a code', reply: { status: 401, body: { message: 'Unauthorized' } }, lands: UNUSABLE },
      { name: 'a 500 without a code', reply: { status: 500, body: 'oops' }, lands: ERROR },
    ];
  },
});

slipApiConformance({
  provider: 'easyslip',
  dataOf: (answer) => answer.data,
  namesInEnglish: true,
  // EasySlip names no delay: the re-checks' own schedule, whatever the simulator was asked for.
  pendingRetryMs: () => undefined,
  replies: (slip) => {
    const party = (bank: string) => ({ bank: { id: bank, name: 'KBANK', short: 'KBANK' }, account: { name: { th: 'นาย ก', en: 'MR A' }, bank: { type: 'BANKAC', account: 'xxx-x-x1234-x' } } });
    const rawSlip = { payload: 'x', transRef: slip.transRef, date: '2025-10-05T10:11:12+07:00', countryCode: 'TH', amount: { amount: 12.5, local: { amount: 0, currency: '' } }, sender: party('004'), receiver: party('014') };
    const ok = (data: unknown) => ({ status: 200, body: { success: true, message: 'Operation completed successfully', data } });
    const fail = (code: string, status = 400) => ({ status, body: { success: false, error: { code, message: 'text' } } });
    return [
      { name: 'success', reply: ok({ isDuplicate: false, matchedAccount: null, amountInSlip: 12.5, rawSlip }), lands: SUCCESS },
      { name: 'isDuplicate', reply: ok({ isDuplicate: true, matchedAccount: null, amountInSlip: 12.5, rawSlip }), lands: SUCCESS },
      { name: 'a time in UTC', reply: ok({ rawSlip: { ...rawSlip, date: '2025-10-05T03:11:12Z' } }), lands: SUCCESS },
      ...['MISSING_API_KEY', 'INVALID_API_KEY'].map((code) => ({ name: code, reply: fail(code, 401), lands: UNUSABLE })),
      ...['BRANCH_INACTIVE', 'SERVICE_BANNED', 'SERVICE_DELETED', 'IP_NOT_ALLOWED', 'QUOTA_EXCEEDED', 'USER_BANNED'].map((code) => ({ name: code, reply: fail(code, 403), lands: UNUSABLE })),
      { name: 'SLIP_NOT_FOUND', reply: fail('SLIP_NOT_FOUND', 404), lands: NOT_FOUND },
      ...['VALIDATION_ERROR', 'INVALID_IMAGE_FORMAT', 'IMAGE_SIZE_TOO_LARGE', 'INVALID_IMAGE', 'UNSUPPORTED_FILE_TYPE'].map((code) => ({ name: code, reply: fail(code), lands: NOT_FOUND })),
      { name: 'SLIP_PENDING', reply: fail('SLIP_PENDING'), lands: NOT_FOUND },
      { name: 'SLIP_PENDING with HTTP 200', reply: fail('SLIP_PENDING', 200), lands: NOT_FOUND },
      ...['NOT_FOUND', 'ACCOUNT_NOT_MATCH', 'AMOUNT_NOT_MATCH', 'SOMETHING_NEW'].map((code) => ({ name: code, reply: fail(code), lands: ERROR })),
      ...['API_SERVER_ERROR', 'INTERNAL_SERVER_ERROR'].map((code) => ({ name: code, reply: fail(code, 500), lands: ERROR })),
      { name: 'success without data', reply: ok(undefined), lands: ERROR },
      { name: 'a date without its offset', reply: ok({ rawSlip: { ...rawSlip, date: '2025-10-05T10:11:12' } }), lands: ERROR },
      { name: 'success false without a code', reply: { status: 400, body: { success: false } }, lands: ERROR },
      { name: 'a 401 without a code', reply: { status: 401, body: { message: 'Unauthorized' } }, lands: UNUSABLE },
      { name: 'a 403 without JSON', reply: { status: 403, body: 'Forbidden' }, lands: UNUSABLE },
      { name: 'a 502 without JSON', reply: { status: 502, body: 'Bad Gateway' }, lands: ERROR },
      { name: 'a list', reply: { status: 200, body: [1, 2] }, lands: ERROR },
    ];
  },
});

slipApiConformance({
  provider: 'slip2go',
  dataOf: (answer) => answer.data,
  // One name per party: senderName, and senderNameEN stays empty.
  namesInEnglish: false,
  pendingRetryMs: () => undefined,
  replies: (slip) => {
    const party = (bank: string) => ({ account: { name: 'นาย ก', bank: { account: 'xxx-x-x1234-x' }, proxy: null }, bank: { id: bank, name: 'KBANK' } });
    const data = { referenceId: 'r', decode: 'x', transRef: slip.transRef, dateTime: '2025-10-05T03:11:12.000Z', amount: 12.5, ref1: '', ref2: '', ref3: '', receiver: party('014'), sender: party('004') };
    const result = (code: string | number, withData: unknown = data, status = 200) => ({ status, body: { code, message: 'text', ...(withData === null ? {} : { data: withData }) } });
    const error = (code: string, status = 400) => ({ status, body: { code, message: 'text' } });
    return [
      ...['200000', '200200', '200401', '200402', '200403'].map((code) => ({ name: `${code} found`, reply: result(code), lands: SUCCESS })),
      ...['200501', '400004'].map((code) => ({ name: `${code} seen before`, reply: result(code), lands: SUCCESS })),
      { name: '200000 as a number', reply: result(200000), lands: SUCCESS },
      { name: '200000 without data', reply: result('200000', null), lands: ERROR },
      { name: '200000 with a time without offset', reply: result('200000', { ...data, dateTime: '2025-10-05 10:11:12' }), lands: ERROR },
      ...['200404', '200500'].map((code) => ({ name: code, reply: result(code, null), lands: NOT_FOUND })),
      ...['400001', '400002'].map((code) => ({ name: code, reply: error(code), lands: NOT_FOUND })),
      ...['200502', '200202'].map((code) => ({ name: code, reply: result(code, null), lands: NOT_FOUND })),
      { name: '400409', reply: error('400409', 409), lands: NOT_FOUND },
      ...['401001', '401002', '401003', '401004', '401005', '401006', '401007', '400005'].map((code) => ({ name: code, reply: error(code, 401), lands: UNUSABLE })),
      ...['400003', '400400', '429000', '999999'].map((code) => ({ name: code, reply: error(code), lands: ERROR })),
      ...['500500', '500503'].map((code) => ({ name: code, reply: error(code, 500), lands: ERROR })),
      { name: 'a 401 without a code', reply: { status: 401, body: { message: 'Unauthorized' } }, lands: UNUSABLE },
      { name: 'a 403 without JSON', reply: { status: 403, body: 'Forbidden' }, lands: UNUSABLE },
      { name: 'a 502 without JSON', reply: { status: 502, body: 'Bad Gateway' }, lands: ERROR },
      { name: 'a list', reply: { status: 200, body: [1, 2] }, lands: ERROR },
    ];
  },
});
