// One HTTP client per bank domain: keep-alive sockets (the token and verify
// calls go to the same host again and again), no retries (the pool decides
// about trying elsewhere, within one deadline), no redirects (a bank API that
// redirects is misconfigured, and bearer tokens must not follow it).
//
// The one exception to "no retries": a bank or its load balancer closes idle
// connections on its own clock, and a request sent on a pooled socket just as
// it closes is reset before the bank answers. That is a stale socket, not an
// unreachable bank, so such a request goes once more on a new connection.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { got, RequestError, type BeforeRequestHook, type CancelableRequest, type OptionsOfTextResponseBody, type Response } from 'got';
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
   * Pooled sockets idle this long are closed. Shorter than the bank's own idle
   * timeout, so we close first and rarely send on a socket the bank is closing.
   */
  idleSocketTimeoutMs?: number;
}

/**
 * Every request carries the caller's deadline as its signal, so got needs no
 * timers of its own (they cost a timer and six listeners per request).
 */
type BankRequest = OptionsOfTextResponseBody & { signal: AbortSignal };

/** Requests to one domain; they resolve with any HTTP status and reject on transport errors. */
export interface BankHttp {
  get(url: string, options: BankRequest): Promise<Response<string>>;
  post(url: string, options: BankRequest): Promise<Response<string>>;
  /** Drops pooled sockets; in-flight requests fail. */
  close(): void;
}

export const DEFAULT_IDLE_SOCKET_TIMEOUT_MS = 4_000;

/**
 * The most of an answer read from a bank or slip API: a slip's answer is a
 * few KB, so anything near this is a fault or an attack, and reading it
 * whole (a 20 MB body, one that never ends) would hold memory and CPU for
 * nothing. The request is dropped at this size (or when its Content-Length
 * announces more) and answered as the network's error. 256 KB leaves every
 * real answer far below it, and bounds what each call in flight may hold.
 */
const MAX_ANSWER_BYTES = 256 * 1024;

/** The request was dropped because its answer passed MAX_ANSWER_BYTES. */
class AnswerTooLarge extends Error {
  override name = 'AnswerTooLarge';
}

export function createBankHttp(opts: BankHttpOptions = {}): BankHttp {
  const idle = new IdleSockets();
  const timeout = opts.idleSocketTimeoutMs ?? DEFAULT_IDLE_SOCKET_TIMEOUT_MS;
  const pooledAgents = {
    http: idle.watch(new http.Agent({ keepAlive: true, timeout })),
    https: idle.watch(new https.Agent({ keepAlive: true, timeout, ...(opts.tls ?? {}) })),
  };
  // Not keep-alive: every request opens its own connection, so a retry can
  // never be handed another stale socket from the pool.
  const freshAgents = {
    http: new http.Agent({ keepAlive: false }),
    https: new https.Agent({ keepAlive: false, ...(opts.tls ?? {}) }),
  };
  const pooled = got.extend({
    agent: pooledAgents,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    hooks: { beforeRequest: [freezeCacheOptions] },
  });
  const fresh = pooled.extend({ agent: freshAgents });

  // The caller's signal travels in `options`, so the retry spends the same budget.
  async function send(method: 'get' | 'post', url: string, options: BankRequest): Promise<Response<string>> {
    try {
      return await bounded(pooled[method](url, options));
    } catch (err) {
      if (!idle.closedWhileIdle(err)) throw err;
      return bounded(fresh[method](url, options));
    }
  }

  return {
    get: (url, options) => send('get', url, options),
    post: (url, options) => send('post', url, options),
    close() {
      for (const agent of [pooledAgents.http, pooledAgents.https, freshAgents.http, freshAgents.https]) agent.destroy();
    },
  };
}

/** Drops the request once its answer announces or reaches more than MAX_ANSWER_BYTES. */
async function bounded(request: CancelableRequest<Response<string>>): Promise<Response<string>> {
  let tooLarge = false;
  request.on('downloadProgress', ({ transferred, total }) => {
    if (tooLarge || (transferred <= MAX_ANSWER_BYTES && (total ?? 0) <= MAX_ANSWER_BYTES)) return;
    tooLarge = true;
    request.cancel();
  });
  try {
    return await request;
  } catch (err) {
    throw tooLarge ? new AnswerTooLarge(`answer larger than ${MAX_ANSWER_BYTES / 1024} KB`) : err;
  }
}

/**
 * got copies each request's `cacheOptions` (an object of its own, unused
 * without a cache) into the options it hands node:http, by spreading it into
 * an object literal of ~30 more properties. On the V8 of Node 20, spreading a
 * non-frozen object there builds a fresh chain of hidden classes every time:
 * ~35 µs and ~4 KB of garbage per request, 4% of a verification's CPU. A
 * frozen one takes V8's cached path (~3 µs). Nothing writes to it after this
 * hook: got reads it only when a cache is configured, and we configure none.
 */
export const freezeCacheOptions: BeforeRequestHook = (options) => {
  Object.freeze(options.cacheOptions);
};

/** Errors a socket closed by the other side gives a request written to it. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Knows which pooled sockets have received nothing since they went idle, so a
 * reset on one of them provably came before any byte of an answer.
 */
class IdleSockets {
  private readonly quiet = new WeakSet<Socket>();
  private readonly listening = new WeakSet<Socket>();

  watch<A extends http.Agent>(agent: A): A {
    agent.on('free', (socket: Socket) => {
      if (!this.listening.has(socket)) {
        this.listening.add(socket);
        socket.on('data', () => this.quiet.delete(socket));
      }
      this.quiet.add(socket);
    });
    return agent;
  }

  /**
   * The request went out on a reused socket and was reset (or hit a closed
   * pipe) before any response byte arrived: the bank closed the idle
   * connection, it did not answer this request. A refused connect or a reset
   * of a new connection is something else and stays a failure.
   */
  closedWhileIdle(err: unknown): boolean {
    if (!(err instanceof RequestError) || err.response !== undefined || !STALE_SOCKET_CODES.has(err.code)) return false;
    const request = err.request;
    if (request?.reusedSocket !== true) return false;
    const socket = request.socket;
    return socket !== undefined && socket !== null && this.quiet.has(socket);
  }
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
  if (err instanceof AnswerTooLarge) return bankError(upstream, err.message);
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
