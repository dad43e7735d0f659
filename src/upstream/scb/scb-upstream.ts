// SCB adapter: a token from the application key and secret, then a GET per
// slip. Every call names the API key as resourceOwnerId and carries a fresh
// requestUId. See scb-protocol.ts for the wire shapes.
import { randomUUID } from 'node:crypto';
import type { Response } from 'got';
import type { SlipQuery } from '../../domain/ports/upstream.js';
import { isRecord, parseJson } from '../shared/bank-http.js';
import { OAuthBankUpstream, type OAuthBankOptions } from '../shared/oauth-bank-upstream.js';
import { bankError, plainWords, slipNotFound, type AdapterResult } from '../shared/outcomes.js';
import { lifetimeFromSeconds, type TokenOutcome } from '../shared/token-cache.js';
import { SCB_NOT_FOUND_CODES, SCB_SUCCESS, SCB_TOKEN_PATH, SCB_VERIFY_PATH, type ScbTokenRequest } from './scb-protocol.js';

export interface ScbCredentials {
  name: string;
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
}

const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;

export class ScbUpstream extends OAuthBankUpstream {
  private readonly baseUrl: string;

  constructor(
    private readonly config: ScbCredentials,
    opts: OAuthBankOptions = {},
  ) {
    super(config.name, opts);
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  private headers(): Record<string, string> {
    return { resourceOwnerId: this.config.apiKey, requestUId: randomUUID(), 'accept-language': 'EN', accept: 'application/json' };
  }

  protected async requestToken(signal: AbortSignal): Promise<TokenOutcome> {
    const body: ScbTokenRequest = { applicationKey: this.config.apiKey, applicationSecret: this.config.apiSecret };
    const response = await this.http.post(this.baseUrl + SCB_TOKEN_PATH, {
      headers: this.headers(),
      json: body,
      signal,
    });
    if (response.statusCode === 401 || response.statusCode === 403) {
      return { ok: false, failure: bankError(this.name, `bank rejected the API key and secret (HTTP ${response.statusCode})`) };
    }
    if (response.statusCode >= 300) return { ok: false, failure: bankError(this.name, `token endpoint answered HTTP ${response.statusCode}`) };
    const parsed = parseJson(response.body);
    const status = isRecord(parsed) && isRecord(parsed.status) ? parsed.status : undefined;
    const data = isRecord(parsed) && isRecord(parsed.data) ? parsed.data : undefined;
    if (status?.code !== SCB_SUCCESS || typeof data?.accessToken !== 'string' || data.accessToken === '') {
      const why = status && status.code !== SCB_SUCCESS ? `${plainWords(status.description) || 'refused'} (code ${String(status.code)})` : 'malformed response';
      return { ok: false, failure: bankError(this.name, `token request failed: ${why}`) };
    }
    return { ok: true, token: data.accessToken, lifetimeMs: lifetimeFromSeconds(data.expiresIn, DEFAULT_TOKEN_LIFETIME_MS) };
  }

  protected sendVerify(query: SlipQuery, token: string, signal: AbortSignal): Promise<Response<string>> {
    return this.http.get(`${this.baseUrl}${SCB_VERIFY_PATH}/${encodeURIComponent(query.transRef)}`, {
      searchParams: { sendingBank: query.sendingBank },
      headers: { ...this.headers(), authorization: `Bearer ${token}` },
      signal,
    });
  }

  protected readVerify(response: Response<string>): AdapterResult {
    if (response.statusCode >= 500) return bankError(this.name, `bank answered HTTP ${response.statusCode}`);
    const body = parseJson(response.body);
    if (!isRecord(body) || !isRecord(body.status) || typeof body.status.code !== 'number') {
      return response.statusCode >= 300
        ? bankError(this.name, `bank answered HTTP ${response.statusCode}`)
        : bankError(this.name, 'malformed response from bank');
    }
    const { code, description } = body.status;
    if (SCB_NOT_FOUND_CODES.has(code)) return slipNotFound(this.name, description as string | undefined);
    if (code !== SCB_SUCCESS) return bankError(this.name, `${plainWords(description) || 'request refused'} (code ${code})`);
    if (!isRecord(body.data)) return bankError(this.name, 'bank response has no transaction data');
    // Checked by the pool against the query, then passed through unchanged as rawData.
    return { ok: true, data: body.data, upstream: this.name };
  }
}
