// The flow every slip API adapter shares (no token: a key on each call):
// send the slip's QR text, read the answer; every thrown error becomes a
// result here, so verify() and readQuota() never reject.
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
  /** Reads any verify response: the provider's codes, its slip, its quota. */
  protected abstract readVerify(response: Response<string>): AdapterResult;

  async verify(query: SlipQuery, signal: AbortSignal): Promise<AdapterResult> {
    try {
      return this.readVerify(await this.sendVerify(query, signal));
    } catch (err) {
      return requestFailure(err, signal, this.name);
    }
  }

  /** A quota call's thrown error as a reading that says why, in a few words. */
  protected quotaFailure(err: unknown, signal: AbortSignal): QuotaReading {
    const failed = requestFailure(err, signal, this.name);
    return { ok: false, message: failed.message };
  }

  close(): void {
    this.http.close();
  }
}
