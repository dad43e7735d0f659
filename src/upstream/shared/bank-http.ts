// One HTTP client per bank domain: keep-alive sockets (the token and verify
// calls go to the same host again and again), no retries (the pool decides
// about trying elsewhere, within one deadline), no redirects (a bank API that
// redirects is misconfigured, and bearer tokens must not follow it).
import http from 'node:http';
import https from 'node:https';
import { got, RequestError, type Got } from 'got';
import { bankError, timedOut, unreachable, type AdapterFailure } from './outcomes.js';

/** PEM contents for mutual TLS, already read from the configured files. */
export interface ClientTls {
  cert: string;
  key: string;
  ca?: string;
}

export interface BankHttpOptions {
  tls?: ClientTls;
  /**
   * Backstop for a single request when a caller's signal never aborts; the
   * real budget is the caller's AbortSignal.
   */
  requestTimeoutMs?: number;
}

export interface BankHttp {
  readonly got: Got;
  /** Drops pooled sockets; in-flight requests fail. */
  close(): void;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export function createBankHttp(opts: BankHttpOptions = {}): BankHttp {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true, ...(opts.tls ?? {}) }),
  };
  const client = got.extend({
    agent: agents,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    timeout: { request: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS },
  });
  return {
    got: client,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * Errors that mean the bank never saw the request (nothing was answered),
 * so asking another domain is safe and cannot double anything.
 */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** A thrown request error as a failure result; `signal` tells a deadline from a fault. */
export function requestFailure(err: unknown, signal: AbortSignal | undefined, upstream: string): AdapterFailure {
  if (signal?.aborted) return timedOut(upstream);
  if (err instanceof RequestError) {
    if (err.name === 'TimeoutError') return timedOut(upstream);
    if (CONNECTION_FAILURES.has(err.code) && !err.response) return unreachable(upstream);
    return bankError(upstream, `request failed (${err.code || err.name})`);
  }
  return bankError(upstream, 'request failed');
}

/** JSON of a response body, or undefined when it is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
