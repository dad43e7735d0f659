// SlipOK adapter: the slip's QR text to the branch's check endpoint with the
// raw key in x-authorization; the answer's `data` is the banks' slip record
// (KBank's field names) and becomes rawData unchanged. See
// slipok-protocol.ts for the codes and their sources.
import type { Response } from 'got';
import type { QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import { isRecord, parseJson, type BankHttpOptions } from '../shared/bank-http.js';
import { bankError, domainUnusable, keyRefusedByStatus, plainWords, slipNotFound, slipPending, type AdapterResult } from '../shared/outcomes.js';
import { SlipApiUpstream } from '../shared/slip-api-upstream.js';
import {
  SLIPOK_AUTH_HEADER,
  SLIPOK_BANK_DOWN_RETRY_MS,
  SLIPOK_CODES,
  SLIPOK_DEFAULT_DELAY_MS,
  slipokCheckPath,
  slipokQuotaPath,
  type SlipokCheckRequest,
} from './slipok-protocol.js';

export interface SlipokCredentials {
  name: string;
  baseUrl: string;
  branchId: string;
  apiKey: string;
}

/** The longest delay believed from a 1010 answer: a day (anything longer is junk, re-checks end sooner anyway). */
const MAX_DELAY_MS = 86_400_000;

export class SlipokUpstream extends SlipApiUpstream {
  private readonly checkUrl: string;
  private readonly quotaUrl: string;

  constructor(
    private readonly config: SlipokCredentials,
    opts: BankHttpOptions = {},
  ) {
    super(config.name, opts);
    const base = config.baseUrl.replace(/\/+$/, '');
    this.checkUrl = base + slipokCheckPath(config.branchId);
    this.quotaUrl = base + slipokQuotaPath(config.branchId);
  }

  private headers(): Record<string, string> {
    return { [SLIPOK_AUTH_HEADER]: this.config.apiKey, accept: 'application/json' };
  }

  protected sendVerify(query: SlipQuery, signal: AbortSignal): Promise<Response<string>> {
    const body: SlipokCheckRequest = { data: query.qrcode };
    return this.http.post(this.checkUrl, { headers: this.headers(), json: body, signal });
  }

  protected readVerify(response: Response<string>): AdapterResult {
    const body = parseJson(response.body);
    const code = isRecord(body) ? codeOf(body.code) : undefined;
    // HTTP statuses per code are not documented: a documented code decides, whatever the status.
    if (isRecord(body) && code !== undefined) return this.readCode(code, body);
    if (response.statusCode >= 300) return this.refusedByStatus(response.statusCode);
    if (!isRecord(body)) return bankError(this.name, 'malformed response from SlipOK');
    if (body.success !== true) return bankError(this.name, 'SlipOK answered without success or a code');
    return this.slipFrom(body.data);
  }

  async readQuota(signal: AbortSignal): Promise<QuotaReading> {
    let response: Response<string>;
    try {
      response = await this.http.get(this.quotaUrl, { headers: this.headers(), signal });
    } catch (err) {
      return this.quotaFailure(err, signal);
    }
    const body = parseJson(response.body);
    const code = isRecord(body) ? codeOf(body.code) : undefined;
    const unusable = code === undefined ? keyRefusedByStatus(response.statusCode) : SLIPOK_CODES.unusable.get(code);
    if (unusable) return { ok: false, message: `SlipOK refused the quota call: ${unusable}`, unusable };
    const data = isRecord(body) && body.success === true && isRecord(body.data) ? body.data : undefined;
    const quota = count(data?.quota);
    if (!data || quota === undefined) {
      return { ok: false, message: code === undefined ? `SlipOK quota call answered HTTP ${response.statusCode} without a quota` : `SlipOK quota call refused (code ${code})` };
    }
    // specialQuota is a second allowance beside the package's (SDK types); overQuota is overage, not quota left.
    return { ok: true, remaining: quota + (count(data.specialQuota) ?? 0) };
  }

  private readCode(code: number, body: Record<string, unknown>): AdapterResult {
    const text = plainWords(body.message);
    if (SLIPOK_CODES.notFound.has(code)) return slipNotFound(this.name, text);
    if (code === SLIPOK_CODES.bankDown) return slipPending(this.name, `the bank's data is down for now (SlipOK ${code})`, SLIPOK_BANK_DOWN_RETRY_MS);
    if (code === SLIPOK_CODES.bankDelay) {
      const minutes = isRecord(body.data) ? body.data.delay : undefined;
      const delay = typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0 ? Math.min(minutes * 60_000, MAX_DELAY_MS) : SLIPOK_DEFAULT_DELAY_MS;
      return slipPending(this.name, `the bank shows this slip later (SlipOK ${code})`, delay);
    }
    const unusable = SLIPOK_CODES.unusable.get(code);
    if (unusable) return domainUnusable(this.name, `${unusable} (SlipOK ${code})`);
    // Seen before (or SlipOK's own checks): its slip is as good as a first answer's.
    if (SLIPOK_CODES.withSlip.has(code) && isRecord(body.data)) return this.slipFrom(body.data);
    return bankError(this.name, `${text || 'request refused'} (SlipOK ${code})`);
  }

  private refusedByStatus(status: number): AdapterResult {
    const unusable = keyRefusedByStatus(status);
    return unusable ? domainUnusable(this.name, unusable) : bankError(this.name, `SlipOK answered HTTP ${status}`);
  }

  private slipFrom(data: unknown): AdapterResult {
    if (!isRecord(data)) return bankError(this.name, 'SlipOK answer has no slip data');
    // The banks' own record already: transDate/transTime are Bangkok time, the amount baht. The pool checks it.
    return { ok: true, data, transaction: { ...data }, upstream: this.name };
  }
}

/** SlipOK's code as a number, sent as 1004 or "1004". */
function codeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,6}$/.test(value)) return Number(value);
  return undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
