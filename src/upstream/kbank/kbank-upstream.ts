// KBank adapter: OAuth2 client credentials (HTTP Basic), then a JSON POST per
// slip. See kbank-protocol.ts for the wire shapes.
import { randomUUID } from 'node:crypto';
import type { Response } from 'got';
import type { SlipQuery } from '../../domain/ports/upstream.js';
import type { ClientTls } from '../shared/bank-http.js';
import { isRecord, parseJson } from '../shared/bank-http.js';
import { bangkokIsoTime } from '../../domain/bangkok-time.js';
import { OAuthBankUpstream, type OAuthBankOptions } from '../shared/oauth-bank-upstream.js';
import { bankError, plainWords, slipNotFound, type AdapterResult } from '../shared/outcomes.js';
import { lifetimeFromSeconds, type TokenOutcome } from '../shared/token-cache.js';
import { KBANK_NOT_FOUND_CODES, KBANK_SUCCESS, KBANK_TOKEN_PATH, KBANK_VERIFY_PATH, type KbankVerifyRequest } from './kbank-protocol.js';

export interface KbankCredentials {
  name: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  tls?: ClientTls;
}

/** Used when the bank leaves expires_in out; short enough to be safe. */
const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;

export class KbankUpstream extends OAuthBankUpstream {
  private readonly baseUrl: string;
  private readonly basicAuth: string;

  constructor(config: KbankCredentials, opts: OAuthBankOptions = {}) {
    super(config.name, { ...opts, tls: config.tls });
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.basicAuth = `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`;
  }

  protected async requestToken(signal: AbortSignal): Promise<TokenOutcome> {
    const response = await this.http.post(this.baseUrl + KBANK_TOKEN_PATH, {
      headers: { authorization: this.basicAuth, accept: 'application/json' },
      form: { grant_type: 'client_credentials' },
      signal,
    });
    if (response.statusCode !== 200) return { ok: false, failure: tokenRefused(this.name, response.statusCode) };
    const body = parseJson(response.body);
    if (!isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '') {
      return { ok: false, failure: bankError(this.name, 'malformed token response') };
    }
    return { ok: true, token: body.access_token, lifetimeMs: lifetimeFromSeconds(body.expires_in, DEFAULT_TOKEN_LIFETIME_MS) };
  }

  protected sendVerify(query: SlipQuery, token: string, signal: AbortSignal): Promise<Response<string>> {
    const body: KbankVerifyRequest = {
      rqUID: randomUUID(),
      rqDt: bangkokIsoTime(),
      data: { sendingBank: query.sendingBank, transRef: query.transRef },
    };
    return this.http.post(this.baseUrl + KBANK_VERIFY_PATH, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      json: body,
      signal,
    });
  }

  protected readVerify(response: Response<string>): AdapterResult {
    if (response.statusCode >= 500) return bankError(this.name, `bank answered HTTP ${response.statusCode}`);
    const body = parseJson(response.body);
    if (!isRecord(body) || typeof body.statusCode !== 'string') {
      return response.statusCode >= 300
        ? bankError(this.name, `bank answered HTTP ${response.statusCode}`)
        : bankError(this.name, 'malformed response from bank');
    }
    const { statusCode, statusMessage } = body;
    if (KBANK_NOT_FOUND_CODES.has(statusCode)) return slipNotFound(this.name, statusMessage as string | undefined);
    if (statusCode !== KBANK_SUCCESS) {
      return bankError(this.name, `${plainWords(statusMessage) || 'request refused'} (code ${statusCode})`);
    }
    if (!isRecord(body.data)) return bankError(this.name, 'bank response has no transaction data');
    // Checked by the pool against the query, then passed through unchanged as rawData.
    return { ok: true, data: body.data, upstream: this.name };
  }
}

function tokenRefused(name: string, status: number) {
  return status === 401 || status === 403
    ? bankError(name, `bank rejected the client credentials (HTTP ${status})`)
    : bankError(name, `token endpoint answered HTTP ${status}`);
}
