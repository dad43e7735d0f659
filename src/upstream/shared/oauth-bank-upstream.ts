// The flow both bank adapters share: get a cached bearer token, call the
// verify endpoint, and on a 401 refresh the token once and try once more.
// Every thrown error becomes a result here, so verify() never rejects.
import type { Response } from 'got';
import type { BankAdapter, SlipQuery } from '../../domain/ports/upstream.js';
import { createBankHttp, requestFailure, type BankHttp, type BankHttpOptions } from './bank-http.js';
import { bankError, timedOut, type AdapterResult } from './outcomes.js';
import { TokenCache, type TokenOutcome } from './token-cache.js';

export interface OAuthBankOptions extends BankHttpOptions {
  /** Clock for token expiry (tests). */
  now?: () => number;
  /** Budget of one token request, which callers share (see TokenCache). */
  tokenTimeoutMs?: number;
}

const DEFAULT_TOKEN_TIMEOUT_MS = 10_000;

/** A domain's own connection settings win over the shared ones. */
export function bankAdapterOptions(config: { idleSocketTimeoutMs?: number }, shared: OAuthBankOptions): OAuthBankOptions {
  return config.idleSocketTimeoutMs === undefined ? shared : { ...shared, idleSocketTimeoutMs: config.idleSocketTimeoutMs };
}

export abstract class OAuthBankUpstream implements BankAdapter {
  protected readonly http: BankHttp;
  private readonly tokenTimeoutMs: number;
  private readonly tokens: TokenCache;

  protected constructor(
    readonly name: string,
    opts: OAuthBankOptions,
  ) {
    this.http = createBankHttp(opts);
    this.tokenTimeoutMs = opts.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    this.tokens = new TokenCache(() => this.requestTokenSafely(), opts.now);
  }

  /** Asks the bank's token endpoint within `signal`; may throw request errors. */
  protected abstract requestToken(signal: AbortSignal): Promise<TokenOutcome>;
  /** Sends the verify request; may throw request errors. */
  protected abstract sendVerify(query: SlipQuery, token: string, signal: AbortSignal): Promise<Response<string>>;
  /** Reads a verify response other than 401. */
  protected abstract readVerify(response: Response<string>): AdapterResult;

  async verify(query: SlipQuery, signal: AbortSignal): Promise<AdapterResult> {
    try {
      return await this.verifyWithToken(query, signal, true);
    } catch (err) {
      return requestFailure(err, signal, this.name);
    }
  }

  close(): void {
    this.http.close();
  }

  private async verifyWithToken(query: SlipQuery, signal: AbortSignal, mayRefresh: boolean): Promise<AdapterResult> {
    const token = await this.tokens.get(signal);
    if (!token.ok) return 'aborted' in token ? timedOut(this.name) : token.failure;
    const response = await this.sendVerify(query, token.token, signal);
    if (response.statusCode !== 401) return this.readVerify(response);
    // Tokens can be revoked or expire early on the bank's side.
    this.tokens.invalidate(token.token);
    if (mayRefresh) return this.verifyWithToken(query, signal, false);
    return bankError(this.name, 'bank rejected a fresh access token (HTTP 401)');
  }

  private async requestTokenSafely(): Promise<TokenOutcome> {
    // One budget for the token call, a retry on a fresh connection included.
    const signal = AbortSignal.timeout(this.tokenTimeoutMs);
    try {
      return await this.requestToken(signal);
    } catch (err) {
      return { ok: false, failure: requestFailure(err, signal, this.name) };
    }
  }
}
