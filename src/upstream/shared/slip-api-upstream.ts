// The flow every slip API adapter shares (no token: a key on each call):
// send the slip's QR text (or, where the provider reads them, a slip picture
// slipgate could not read), read the answer; every thrown error becomes a
// result here, so verify(), verifyPicture() and readQuota() never reject.
import type { Response } from 'got';
import type { BankAdapter, QuotaReading, SlipQuery } from '../../domain/ports/upstream.js';
import { createBankHttp, requestFailure, type BankHttp, type BankHttpOptions } from './bank-http.js';
import type { AdapterResult } from './outcomes.js';

/** Where and how a provider takes a slip picture: one multipart part. */
export interface PictureUpload {
  url: string;
  /** The part's name the provider documents (EasySlip `image`, Slip2Go `file`). */
  part: string;
  /** The file name sent with it (a provider may read the picture's kind from it). */
  fileName: string;
  headers: Record<string, string>;
}

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
  /** Reads any verify response, whatever its HTTP status: the provider's codes, its slip, its quota. */
  protected abstract readVerify(response: Response<string>): AdapterResult;

  verify(query: SlipQuery, signal: AbortSignal): Promise<AdapterResult> {
    return this.answered(() => this.sendVerify(query, signal), signal);
  }

  /** A slip picture as the provider's multipart part: one call, read as any verify answer. */
  protected uploadPicture(upload: PictureUpload, bytes: Uint8Array, mimeType: string, signal: AbortSignal): Promise<AdapterResult> {
    const form = new FormData();
    form.append(upload.part, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }), upload.fileName);
    return this.answered(() => this.http.post(upload.url, { headers: upload.headers, body: form, signal }), signal);
  }

  /** The quota call's answer read by `read`; a thrown request error is a reading that says why. */
  protected async askQuota(send: () => Promise<Response<string>>, read: (response: Response<string>) => QuotaReading, signal: AbortSignal): Promise<QuotaReading> {
    let response: Response<string>;
    try {
      response = await send();
    } catch (err) {
      return this.quotaFailure(err, signal);
    }
    return read(response);
  }

  /** A quota call's thrown error as a reading that says why, in a few words. */
  protected quotaFailure(err: unknown, signal: AbortSignal): QuotaReading {
    const failed = requestFailure(err, signal, this.name);
    return { ok: false, message: failed.message };
  }

  close(): void {
    this.http.close();
  }

  private async answered(send: () => Promise<Response<string>>, signal: AbortSignal): Promise<AdapterResult> {
    try {
      return this.readVerify(await send());
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
 * An ISO 8601 time with its offset (EasySlip's "+07:00", Slip2Go's UTC "Z")
 * as the banks' record has it: transDate yyyyMMdd and transTime HH:mm:ss in
 * Bangkok local time, the same instant. Undefined for anything else (no
 * offset, not a real time, not text).
 */
export function bangkokDateParts(iso: unknown): { transDate: string; transTime: string } | undefined {
  if (typeof iso !== 'string' || !ISO_WITH_OFFSET.test(iso)) return undefined;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return undefined;
  const local = new Date(ms + BANGKOK_OFFSET_MS).toISOString();
  return { transDate: local.slice(0, 10).replaceAll('-', ''), transTime: local.slice(11, 19) };
}
