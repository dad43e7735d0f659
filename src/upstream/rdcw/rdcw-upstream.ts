// RDCW adapter: the slip's QR text with HTTP Basic auth; a 2xx answer is a
// slip only with `valid: true`, its `data` (flat, or in KBank's envelope)
// the banks' record, passed through unchanged as rawData. Every answer may
// report the subscription's quota, kept for readQuota: RDCW has no quota
// call, and spending a verification to read it is out of the question.
import type { Response } from 'got';
import type { QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import { isRecord, parseJson, type BankHttpOptions } from '../shared/bank-http.js';
import { bankError, domainUnusable, plainWords, slipNotFound, slipPending, type AdapterResult } from '../shared/outcomes.js';
import { SlipApiUpstream } from '../shared/slip-api-upstream.js';
import { RDCW_CODES, RDCW_INQUIRY_PATH, type RdcwInquiryRequest } from './rdcw-protocol.js';

export interface RdcwCredentials {
  name: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

export class RdcwUpstream extends SlipApiUpstream {
  private readonly inquiryUrl: string;
  private readonly basicAuth: string;
  /** What the last answer said; undefined before any answer reported it. */
  private lastQuota: number | null | undefined;

  constructor(config: RdcwCredentials, opts: BankHttpOptions = {}) {
    super(config.name, opts);
    this.inquiryUrl = config.baseUrl.replace(/\/+$/, '') + RDCW_INQUIRY_PATH;
    this.basicAuth = `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`;
  }

  protected sendVerify(query: SlipQuery, signal: AbortSignal): Promise<Response<string>> {
    const body: RdcwInquiryRequest = { payload: query.qrcode };
    return this.http.post(this.inquiryUrl, { headers: { authorization: this.basicAuth, accept: 'application/json' }, json: body, signal });
  }

  protected readVerify(response: Response<string>): AdapterResult {
    const body = parseJson(response.body);
    const quotaRemaining = isRecord(body) ? quotaOf(body.quota) : undefined;
    if (quotaRemaining !== undefined) this.lastQuota = quotaRemaining;
    const result = this.classify(response.statusCode, body);
    return quotaRemaining === undefined ? result : { ...result, quotaRemaining };
  }

  /** The quota the last answer reported: RDCW has no call that reads it for free. */
  readQuota(): Promise<QuotaReading> {
    if (this.lastQuota === undefined) return Promise.resolve({ ok: false, message: 'RDCW reports its quota only with a verification; none answered yet', unasked: true });
    return Promise.resolve({ ok: true, remaining: this.lastQuota });
  }

  private classify(status: number, body: unknown): AdapterResult {
    const code = isRecord(body) && typeof body.code === 'number' && Number.isInteger(body.code) ? body.code : undefined;
    // Statuses per code are undocumented: an error's code decides, whatever the status (a slip answer has `valid`, no code).
    if (isRecord(body) && code !== undefined && (status >= 300 || body.valid === undefined)) return this.readCode(code, body.message);
    if (status >= 300) {
      if (status === 401 || status === 403) return domainUnusable(this.name, `client id or secret refused (HTTP ${status})`);
      return bankError(this.name, `RDCW answered HTTP ${status}`);
    }
    if (!isRecord(body) || typeof body.valid !== 'boolean') return bankError(this.name, 'malformed response from RDCW');
    // 2xx with valid:false: RDCW could not confirm the slip (the SDKs treat it as not a real slip).
    if (!body.valid) return slipNotFound(this.name, 'the bank did not confirm this slip');
    const data = body.data;
    if (!isRecord(data)) return bankError(this.name, 'RDCW answer has no slip data');
    // isCached (asked before) changes nothing: the slip is the slip, slipgate's own checks decide.
    return { ok: true, data, transaction: slipOf(data), upstream: this.name };
  }

  private readCode(code: number, message: unknown): AdapterResult {
    const text = plainWords(message);
    if (RDCW_CODES.notFound.has(code)) return slipNotFound(this.name, text);
    if (RDCW_CODES.bankDelayed.has(code)) return slipPending(this.name, `the bank cannot be asked now (RDCW ${code})`);
    const unusable = RDCW_CODES.unusable.get(code);
    if (unusable) return domainUnusable(this.name, `${unusable} (RDCW ${code})`);
    return bankError(this.name, `${text || 'request refused'} (RDCW ${code})`);
  }
}

/**
 * The slip in the banks' record. Most integrations read it flat under
 * `data`; one SDK types `data` as KBank's envelope ({rqUID, statusCode,
 * data: slip}). Both are read; rawData stays `data` as it came.
 */
function slipOf(data: Record<string, unknown>): Record<string, unknown> {
  const wrapped = typeof data.statusCode === 'string' && isRecord(data.data) && data.transRef === undefined;
  return wrapped ? { ...(data.data as Record<string, unknown>) } : { ...data };
}

/** `quota: {cost, usage, limit}` → what is left; null when the numbers say nothing usable. */
function quotaOf(quota: unknown): number | undefined {
  if (!isRecord(quota)) return undefined;
  const { usage, limit } = quota;
  if (typeof usage !== 'number' || typeof limit !== 'number' || !Number.isFinite(usage) || !Number.isFinite(limit)) return undefined;
  return Math.max(0, Math.floor(limit - usage));
}
