// The flow of a slip API (EasySlip, Slip2Go…): one authenticated JSON call
// per slip with the slip's QR text, and a quota call that spends nothing.
// No token dance as with the banks. Every thrown error becomes a result
// here, so verify() and readQuota() never reject.
import type { Response } from 'got';
import type { BankAdapter, QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import { createBankHttp, requestFailure, type BankHttp, type BankHttpOptions } from './bank-http.js';
import type { AdapterResult } from './outcomes.js';

export abstract class SlipApiUpstream implements BankAdapter {
  protected readonly http: BankHttp;

  protected constructor(
    readonly name: string,
    opts: BankHttpOptions,
  ) {
    this.http = createBankHttp(opts);
  }

  /** Sends the slip's QR text; may throw request errors. */
  protected abstract sendVerify(query: SlipQuery, signal: AbortSignal): Promise<Response<string>>;
  /** Reads any verify answer, whatever its HTTP status. */
  protected abstract readVerify(response: Response<string>): AdapterResult;
  /** Asks the quota endpoint; may throw request errors. */
  protected abstract sendQuota(signal: AbortSignal): Promise<Response<string>>;
  protected abstract readQuotaAnswer(response: Response<string>): QuotaReading;

  async verify(query: SlipQuery, signal: AbortSignal): Promise<AdapterResult> {
    return this.read(() => this.sendVerify(query, signal), (response) => this.readVerify(response), signal);
  }

  async readQuota(signal: AbortSignal): Promise<QuotaReading> {
    try {
      return this.readQuotaAnswer(await this.sendQuota(signal));
    } catch (err) {
      return { ok: false, message: requestFailure(err, signal, this.name).message };
    }
  }

  close(): void {
    this.http.close();
  }

  /** One call and its reading; a thrown request error is a failure result. */
  protected async read(send: () => Promise<Response<string>>, read: (response: Response<string>) => AdapterResult, signal: AbortSignal): Promise<AdapterResult> {
    try {
      return read(await send());
    } catch (err) {
      return requestFailure(err, signal, this.name);
    }
  }
}

/** A provider's own error code, shown in messages only when it looks like one (it comes from outside). */
export function providerCode(code: unknown): string | undefined {
  const text = typeof code === 'number' && Number.isSafeInteger(code) ? String(code) : code;
  return typeof text === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(text) ? text : undefined;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const BANGKOK_OFFSET_MS = 7 * 3_600_000;

/**
 * An ISO 8601 time with its offset (a slip API's "+07:00" or UTC "Z") as the
 * banks' record has it: transDate yyyyMMdd and transTime HH:mm:ss in Bangkok
 * local time, the same instant. Undefined for anything else (no offset, not
 * a real time, not text).
 */
export function bangkokDateParts(iso: unknown): { transDate: string; transTime: string } | undefined {
  if (typeof iso !== 'string' || !ISO_WITH_OFFSET.test(iso)) return undefined;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return undefined;
  const local = new Date(ms + BANGKOK_OFFSET_MS).toISOString();
  return { transDate: local.slice(0, 10).replaceAll('-', ''), transTime: local.slice(11, 19) };
}
