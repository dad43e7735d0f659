// EasySlip API v2 adapter: a JSON POST of the slip's QR text with a bearer
// key, and GET /v2/info for the quota. See easyslip-protocol.ts for the
// wire shapes and their sources. slipgate never sends checkDuplicate,
// matchAmount or matchAccount: those checks stay its own, local and free.
import type { Response } from 'got';
import type { QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import type { RawParty, RawSlipData } from '../../domain/types.js';
import { isRecord, parseJson, type BankHttpOptions } from '../shared/bank-http.js';
import { bankError, domainUnusable, keyRefusedByStatus, plainWords, slipNotFound, slipPending, type AdapterResult } from '../shared/outcomes.js';
import { bangkokDateParts, providerCode, SlipApiUpstream } from '../shared/slip-api-upstream.js';
import {
  EASYSLIP_IMAGE_PART,
  EASYSLIP_INFO_PATH,
  EASYSLIP_NOT_FOUND_CODES,
  EASYSLIP_PENDING_CODES,
  EASYSLIP_UNUSABLE_CODES,
  EASYSLIP_VERIFY_PATH,
} from './easyslip-protocol.js';

export interface EasyslipCredentials {
  name: string;
  baseUrl: string;
  apiKey: string;
}

export class EasyslipUpstream extends SlipApiUpstream {
  private readonly baseUrl: string;
  private readonly authorization: string;

  constructor(config: EasyslipCredentials, opts: BankHttpOptions = {}) {
    super(config.name, opts);
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.authorization = `Bearer ${config.apiKey}`;
  }

  protected sendVerify(query: SlipQuery, signal: AbortSignal): Promise<Response<string>> {
    return this.http.post(this.baseUrl + EASYSLIP_VERIFY_PATH, { headers: this.headers(), json: { payload: query.qrcode }, signal });
  }

  /** A slip picture slipgate could not read itself, sent as the multipart part `image` (one call, the same outcomes). */
  verifyPicture(bytes: Uint8Array, mimeType: string, _requestId: string, signal: AbortSignal): Promise<AdapterResult> {
    return this.uploadPicture({ url: this.baseUrl + EASYSLIP_VERIFY_PATH, part: EASYSLIP_IMAGE_PART, fileName: 'slip', headers: this.headers() }, bytes, mimeType, signal);
  }

  protected readVerify(response: Response<string>): AdapterResult {
    const body = parseJson(response.body);
    if (!isRecord(body)) return unreadable(this.name, response.statusCode);
    if (body.success === true) {
      if (!isRecord(body.data)) return bankError(this.name, 'answer has no slip data');
      const transaction = easyslipTransaction(body.data);
      if (!transaction) return bankError(this.name, 'slip data has the wrong shape');
      // isDuplicate (only with checkDuplicate, never sent) is a success like any other: slipgate keeps its own record of used slips.
      return { ok: true, data: body.data, transaction, upstream: this.name };
    }
    const error = isRecord(body.error) ? body.error : undefined;
    const code = providerCode(error?.code);
    if (body.success !== false || code === undefined) return unreadable(this.name, response.statusCode);
    const words = plainWords(error?.message);
    if (EASYSLIP_UNUSABLE_CODES.has(code)) return domainUnusable(this.name, `${words || 'key refused'} (${code})`);
    if (EASYSLIP_NOT_FOUND_CODES.has(code)) return slipNotFound(this.name, error?.message as string | undefined);
    if (EASYSLIP_PENDING_CODES.has(code)) return slipPending(this.name, words || 'the bank has not published the slip yet');
    return bankError(this.name, `${words || 'request refused'} (code ${code})`);
  }

  /** GET /v2/info, free: `data.application.quota.remaining`, null a package without a limit. */
  readQuota(signal: AbortSignal): Promise<QuotaReading> {
    return this.askQuota(() => this.http.get(this.baseUrl + EASYSLIP_INFO_PATH, { headers: this.headers(), signal }), (response) => this.readInfo(response), signal);
  }

  private headers(): Record<string, string> {
    return { authorization: this.authorization, accept: 'application/json' };
  }

  private readInfo(response: Response<string>): QuotaReading {
    const body = parseJson(response.body);
    if (isRecord(body) && body.success === true && isRecord(body.data)) {
      const quota = isRecord(body.data.application) && isRecord(body.data.application.quota) ? body.data.application.quota : undefined;
      const remaining = quota?.remaining;
      if (remaining === null || (typeof remaining === 'number' && Number.isFinite(remaining) && remaining >= 0)) return { ok: true, remaining };
      return { ok: false, message: 'info answer has no quota' };
    }
    const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
    const code = providerCode(error?.code);
    const reason = `${plainWords(error?.message) || `HTTP ${response.statusCode}`}${code ? ` (${code})` : ''}`;
    if (code !== undefined && EASYSLIP_UNUSABLE_CODES.has(code)) return { ok: false, message: reason, unusable: reason };
    const refused = code === undefined ? keyRefusedByStatus(response.statusCode) : undefined;
    if (refused) return { ok: false, message: refused, unusable: refused };
    return { ok: false, message: `info call failed: ${reason}` };
  }
}

/** An answer without a code slipgate reads: a bare 401/403 is a refused key (as SlipOK's and RDCW's are), anything else an error. */
function unreadable(name: string, status: number): AdapterResult {
  const refused = keyRefusedByStatus(status);
  if (refused) return domainUnusable(name, refused);
  return status >= 300 ? bankError(name, `answered HTTP ${status}`) : bankError(name, 'malformed response');
}

/**
 * `data.rawSlip` in the banks' record, which the pool checks against the QR
 * and maps: the time in Bangkok local time (EasySlip sends ISO 8601 with
 * +07:00; a UTC one is converted to the same instant), the amount in baht as
 * sent, names th → displayName and en → name, the masked account and proxy
 * values as given. Undefined when a field it reads has the wrong type.
 */
function easyslipTransaction(data: Record<string, unknown>): RawSlipData | undefined {
  const slip = data.rawSlip;
  if (!isRecord(slip) || typeof slip.transRef !== 'string') return undefined;
  const when = bangkokDateParts(slip.date);
  const amount = isRecord(slip.amount) ? slip.amount.amount : undefined;
  const sender = party(slip.sender);
  const receiver = party(slip.receiver);
  if (!when || typeof amount !== 'number' || !sender || !receiver) return undefined;
  return {
    transRef: slip.transRef,
    sendingBank: sender.bank,
    receivingBank: receiver.bank,
    ...when,
    amount,
    sender: sender.party,
    receiver: receiver.party,
    countryCode: slip.countryCode,
    ref1: slip.ref1,
    ref2: slip.ref2,
    ref3: slip.ref3,
    toMerchantId: isRecord(slip.receiver) ? slip.receiver.merchantId : undefined,
  };
}

function party(value: unknown): { bank: string; party: RawParty } | undefined {
  if (!isRecord(value) || !isRecord(value.bank) || typeof value.bank.id !== 'string') return undefined;
  const account = isRecord(value.account) ? value.account : {};
  const name = isRecord(account.name) ? account.name : {};
  return {
    bank: value.bank.id,
    party: { displayName: name.th as string | undefined, name: name.en as string | undefined, account: valueField(account.bank), proxy: valueField(account.proxy) },
  };
}

/** EasySlip names the masked value `account`; the banks' record names it `value`. */
function valueField(value: unknown): RawParty['account'] {
  return isRecord(value) ? { type: value.type as string | undefined, value: value.account as string | undefined } : '';
}
