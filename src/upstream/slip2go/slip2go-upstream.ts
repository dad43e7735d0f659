// Slip2Go adapter: a JSON POST of the slip's QR text with the shop's secret
// as a bearer token, and GET /account/info for the quota. See
// slip2go-protocol.ts for the codes and their sources. slipgate never sends
// checkCondition (duplicate, receiver, amount, date): those checks stay its
// own, local and free.
import type { Response } from 'got';
import type { QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import type { RawParty, RawSlipData } from '../../domain/types.js';
import { isRecord, parseJson, type BankHttpOptions } from '../shared/bank-http.js';
import { bankError, domainUnusable, keyRefusedByStatus, plainWords, slipNotFound, slipPending, type AdapterResult } from '../shared/outcomes.js';
import { bangkokDateParts, providerCode, SlipApiUpstream } from '../shared/slip-api-upstream.js';
import {
  SLIP2GO_FOUND_CODES,
  SLIP2GO_IMAGE_PART,
  SLIP2GO_IMAGE_PATH,
  SLIP2GO_INFO_CODE,
  SLIP2GO_INFO_PATH,
  SLIP2GO_NOT_FOUND_CODES,
  SLIP2GO_PENDING_CODES,
  SLIP2GO_SEEN_BEFORE_CODES,
  SLIP2GO_UNUSABLE_CODES,
  SLIP2GO_VERIFY_PATH,
} from './slip2go-protocol.js';

export interface Slip2goCredentials {
  name: string;
  baseUrl: string;
  apiSecret: string;
}

export class Slip2goUpstream extends SlipApiUpstream {
  private readonly baseUrl: string;
  private readonly authorization: string;

  constructor(config: Slip2goCredentials, opts: BankHttpOptions = {}) {
    super(config.name, opts);
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.authorization = `Bearer ${config.apiSecret}`;
  }

  protected sendVerify(query: SlipQuery, signal: AbortSignal): Promise<Response<string>> {
    return this.http.post(this.baseUrl + SLIP2GO_VERIFY_PATH, { headers: this.headers(), json: { payload: { qrCode: query.qrcode } }, signal });
  }

  /** A slip picture slipgate could not read itself, sent as the multipart part `file` (one call, the same outcomes). */
  verifyPicture(bytes: Uint8Array, mimeType: string, _requestId: string, signal: AbortSignal): Promise<AdapterResult> {
    return this.uploadPicture({ url: this.baseUrl + SLIP2GO_IMAGE_PATH, part: SLIP2GO_IMAGE_PART, fileName: pictureName(mimeType), headers: this.headers() }, bytes, mimeType, signal);
  }

  protected readVerify(response: Response<string>): AdapterResult {
    const body = parseJson(response.body);
    const code = isRecord(body) ? providerCode(body.code) : undefined;
    if (!isRecord(body) || code === undefined) {
      // A bare 401/403 is a refused secret, as SlipOK's and RDCW's are.
      const refused = keyRefusedByStatus(response.statusCode);
      if (refused) return domainUnusable(this.name, refused);
      return response.statusCode >= 300 ? bankError(this.name, `answered HTTP ${response.statusCode}`) : bankError(this.name, 'malformed response');
    }
    if (SLIP2GO_FOUND_CODES.has(code) || SLIP2GO_SEEN_BEFORE_CODES.has(code)) {
      if (!isRecord(body.data)) return bankError(this.name, `answer has no slip data (code ${code})`);
      const transaction = slip2goTransaction(body.data);
      if (!transaction) return bankError(this.name, 'slip data has the wrong shape');
      return { ok: true, data: body.data, transaction, upstream: this.name };
    }
    const words = plainWords(body.message);
    if (SLIP2GO_NOT_FOUND_CODES.has(code)) return slipNotFound(this.name, body.message as string | undefined);
    if (SLIP2GO_PENDING_CODES.has(code)) return slipPending(this.name, words || 'the bank cannot answer yet');
    if (SLIP2GO_UNUSABLE_CODES.has(code)) return domainUnusable(this.name, `${words || 'secret refused'} (${code})`);
    return bankError(this.name, `${words || 'request refused'} (code ${code})`);
  }

  /** GET /account/info, free: `data.quotaRemaining` of a 200001 answer. */
  readQuota(signal: AbortSignal): Promise<QuotaReading> {
    return this.askQuota(() => this.http.get(this.baseUrl + SLIP2GO_INFO_PATH, { headers: this.headers(), signal }), (response) => this.readInfo(response), signal);
  }

  private headers(): Record<string, string> {
    return { authorization: this.authorization, accept: 'application/json' };
  }

  private readInfo(response: Response<string>): QuotaReading {
    const body = parseJson(response.body);
    const code = isRecord(body) ? providerCode(body.code) : undefined;
    if (isRecord(body) && code === SLIP2GO_INFO_CODE) {
      const remaining = isRecord(body.data) ? body.data.quotaRemaining : undefined;
      if (typeof remaining === 'number' && Number.isFinite(remaining) && remaining >= 0) return { ok: true, remaining };
      return { ok: false, message: 'account info has no quotaRemaining' };
    }
    const reason = `${(isRecord(body) && plainWords(body.message)) || `HTTP ${response.statusCode}`}${code ? ` (${code})` : ''}`;
    if (code !== undefined && SLIP2GO_UNUSABLE_CODES.has(code)) return { ok: false, message: reason, unusable: reason };
    const refused = code === undefined ? keyRefusedByStatus(response.statusCode) : undefined;
    if (refused) return { ok: false, message: refused, unusable: refused };
    return { ok: false, message: `account info call failed: ${reason}` };
  }
}

/** Slip2Go takes png, jpg and jpeg, and reads the kind from the file name. */
function pictureName(mimeType: string): string {
  return mimeType === 'image/png' ? 'slip.png' : 'slip.jpg';
}

/**
 * `data` in the banks' record, which the pool checks against the QR and
 * maps: dateTime (UTC "Z") as the same instant in Bangkok local time, the
 * amount in baht as sent, the one name Slip2Go gives as displayName, the
 * masked account and proxy values as given. Undefined when a field it reads
 * has the wrong type.
 */
function slip2goTransaction(data: Record<string, unknown>): RawSlipData | undefined {
  if (typeof data.transRef !== 'string') return undefined;
  const when = bangkokDateParts(data.dateTime);
  const sender = party(data.sender);
  const receiver = party(data.receiver);
  if (!when || typeof data.amount !== 'number' || !sender || !receiver) return undefined;
  return {
    transRef: data.transRef,
    sendingBank: sender.bank,
    receivingBank: receiver.bank,
    ...when,
    amount: data.amount,
    sender: sender.party,
    receiver: receiver.party,
    ref1: data.ref1 ?? '',
    ref2: data.ref2 ?? '',
    ref3: data.ref3 ?? '',
  };
}

function party(value: unknown): { bank: string; party: RawParty } | undefined {
  if (!isRecord(value) || !isRecord(value.bank) || typeof value.bank.id !== 'string') return undefined;
  const account = isRecord(value.account) ? value.account : {};
  const bankAccount = isRecord(account.bank) ? account.bank : undefined;
  const proxy = isRecord(account.proxy) ? account.proxy : undefined;
  return {
    bank: value.bank.id,
    party: {
      displayName: account.name as string | undefined,
      account: bankAccount ? { type: 'BANKAC', value: bankAccount.account as string | undefined } : '',
      proxy: proxy ? { type: proxy.type as string | undefined, value: proxy.account as string | undefined } : '',
    },
  };
}
