// A small typed client for POST /api/v1/verify. Global fetch only, so it runs
// in Node 20+, Deno, Bun and browsers. Retries only where a retry can neither
// charge twice nor make a duplicate check see its own first attempt.
import { ERROR_CODES, type Checks, type ChecksFor, type ErrorCode, type VerifyError, type VerifyResult } from './types.js';
import { paymentRequestCalls, type PaymentRequestCalls } from './payments.js';

export interface ClientOptions {
  /** Base URL of slipgate's public listener, e.g. https://slips.example.com */
  url: string;
  apiKey: string;
  /** Per attempt. Default 12 s: the server answers within its 10 s network budget. */
  timeoutMs?: number;
  /** Extra attempts after connection failures, 429 and 503. Default 2. */
  retries?: number;
  /** First backoff delay; doubles each retry, with jitter. Default 250 ms. */
  retryDelayMs?: number;
  /** Longest wait between attempts, also for Retry-After. Default 5 s. */
  maxRetryDelayMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number }) => void;
}

export interface VerifyOptions<C extends Checks | undefined> {
  checks?: C;
  /** A payment request of the account (`pr_…`) this slip should pay; the success then says whether it did (`paymentRequest`). */
  paymentRequest?: string;
  /** A slip the bank does not know yet is kept and asked again: a `pending` result (202) instead of a not-found error. */
  recheck?: boolean;
  signal?: AbortSignal;
}

export type TransportFailure = 'timeout' | 'network' | 'aborted' | 'bad_response';

/** No usable answer from slipgate. Whether a timed-out call was charged is unknown. */
export class SlipgateError extends Error {
  override name = 'SlipgateError';
  constructor(
    readonly reason: TransportFailure,
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A slip picture (JPEG, PNG, WebP): its bytes (sent as the raw body), or base64 text (sent as JSON `image`; a `data:image/…;base64,` URL too). */
export type SlipImageInput = Uint8Array | ArrayBuffer | string;

export interface SlipgateClient extends PaymentRequestCalls {
  verify(qrcode: string, options?: VerifyOptions<undefined>): Promise<VerifyResult<undefined>>;
  verify<const C extends Checks>(qrcode: string, options: VerifyOptions<C> & { checks: C }): Promise<VerifyResult<ChecksFor<C>>>;
  /** slipgate reads the slip QR from the picture; `qrcode` of a success is what it read. */
  verifyImage(image: SlipImageInput, options?: VerifyOptions<undefined>): Promise<VerifyResult<undefined>>;
  verifyImage<const C extends Checks>(image: SlipImageInput, options: VerifyOptions<C> & { checks: C }): Promise<VerifyResult<ChecksFor<C>>>;
}

const VERIFY_PATH = '/api/v1/verify';
/** Failures where the request never reached a server: safe to send again. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** The account errors' codes (1026 is the payment create's own: payments.ts). */
const CODES = new Set<number>(Object.values(ERROR_CODES).filter((code) => code !== ERROR_CODES.REFERENCE_CONFLICT && code !== ERROR_CODES.RECHECK_LIMIT));

export function createClient(options: ClientOptions): SlipgateClient {
  const base = options.url.replace(/\/+$/, '').replace(/\/api\/v1\/verify$/, '');
  const endpoint = base + VERIFY_PATH;
  const timeoutMs = options.timeoutMs ?? 12_000;
  const retries = options.retries ?? 2;
  const baseDelay = options.retryDelayMs ?? 250;
  const maxDelay = options.maxRetryDelayMs ?? 5_000;

  const verify = (qrcode: string, opts: VerifyOptions<Checks | undefined> = {}) => send({ qrcode }, opts);
  // Bytes go as the raw body (a third fewer bytes than base64, no copy or decode on either side); base64 text as JSON.
  const verifyImage = (image: SlipImageInput, opts: VerifyOptions<Checks | undefined> = {}) =>
    typeof image === 'string' ? send({ image }, opts) : sendPicture(image instanceof Uint8Array ? image : new Uint8Array(image), opts);

  function send(payload: { qrcode: string } | { image: string }, opts: VerifyOptions<Checks | undefined>): Promise<VerifyResult<unknown>> {
    const extras = {
      ...(opts.checks === undefined ? {} : { checks: opts.checks }),
      ...(opts.paymentRequest === undefined ? {} : { paymentRequest: opts.paymentRequest }),
      ...(opts.recheck === undefined ? {} : { recheck: opts.recheck }),
    };
    return post(endpoint, 'application/json', JSON.stringify({ ...payload, ...extras }), opts);
  }

  /** The picture as the body, its options as query parameters (`checks` as JSON text). */
  function sendPicture(bytes: Uint8Array, opts: VerifyOptions<Checks | undefined>): Promise<VerifyResult<unknown>> {
    const query = new URLSearchParams();
    if (opts.paymentRequest !== undefined) query.set('paymentRequest', opts.paymentRequest);
    if (opts.checks !== undefined) query.set('checks', JSON.stringify(opts.checks));
    const url = query.toString() === '' ? endpoint : `${endpoint}?${query.toString()}`;
    return post(url, pictureType(bytes), bytes as Uint8Array<ArrayBuffer>, opts);
  }

  async function post(url: string, contentType: string, body: string | Uint8Array<ArrayBuffer>, opts: VerifyOptions<Checks | undefined>): Promise<VerifyResult<unknown>> {
    for (let attempt = 1; ; attempt++) {
      const retry = async (reason: string, retryAfter?: number) => {
        const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1) * (0.5 + Math.random()));
        const delayMs = Math.round(retryAfter !== undefined ? Math.min(maxDelay, retryAfter) : backoff);
        options.onRetry?.({ attempt, reason, delayMs });
        await sleep(delayMs, opts.signal);
      };
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': contentType, accept: 'application/json', 'x-api-key': options.apiKey },
          body,
          signal,
        });
      } catch (err) {
        if (opts.signal?.aborted) throw new SlipgateError('aborted', 'verification aborted by the caller', attempt, { cause: err });
        // Never retried: the server may be verifying (and charging) it right now.
        if (timeout.aborted) throw new SlipgateError('timeout', `no answer from slipgate within ${timeoutMs} ms`, attempt, { cause: err });
        const code = connectErrorCode(err);
        if (code && attempt <= retries) {
          await retry(code);
          continue;
        }
        throw new SlipgateError('network', `could not reach slipgate: ${code ?? describe(err)}`, attempt, { cause: err });
      }
      // 429 and 503 are answered before any verification: nothing was charged.
      if ((res.status === 429 || res.status === 503) && attempt <= retries) {
        await res.body?.cancel().catch(() => undefined);
        await retry(`HTTP ${res.status}`, retryAfterMs(res.headers.get('retry-after')));
        continue;
      }
      return toResult(res, attempt);
    }
  }
  return { verify, verifyImage, ...paymentRequestCalls({ base, apiKey: options.apiKey, timeoutMs }) } as SlipgateClient;
}

/**
 * The picture's type by its signature. Anything else is sent as a JPEG: the
 * server checks the signature itself and answers a 400 that names the problem.
 */
function pictureType(b: Uint8Array): string {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return 'image/jpeg';
}

/** The JSON envelope of any answer (`status` success or error), or a SlipgateError. */
export async function envelope(res: Response, attempts: number): Promise<Record<string, unknown>> {
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch (err) {
    throw new SlipgateError('bad_response', `slipgate answered HTTP ${res.status} without a JSON body`, attempts, { cause: err });
  }
  if (body === null || typeof body !== 'object' || (body.status !== 'success' && body.status !== 'error' && !(body.status === 'pending' && res.status === 202))) {
    throw new SlipgateError('bad_response', `slipgate answered HTTP ${res.status} with an unexpected body`, attempts);
  }
  return body;
}

async function toResult(res: Response, attempts: number): Promise<VerifyResult<unknown>> {
  const body = await envelope(res, attempts);
  if (body.status === 'error') return errorResult(res, body);
  const message = typeof body.message === 'string' ? body.message : '';
  const creditsRemaining = creditsOf(res);
  if (body.status === 'pending') {
    const about = body.paymentRequest === undefined ? {} : { paymentRequest: body.paymentRequest };
    return { status: 'pending', httpStatus: 202, verificationId: body.verificationId, ...about, message, ...creditsRemaining } as VerifyResult<unknown>;
  }
  const success = { status: 'success', httpStatus: 200, data: body.data, message, qrcode: body.qrcode, ...creditsRemaining };
  const extras = { ...(body.checks === undefined ? {} : { checks: body.checks }), ...(body.paymentRequest === undefined ? {} : { paymentRequest: body.paymentRequest }) };
  return { ...success, ...extras } as VerifyResult<unknown>;
}

/** An error answer as the SDK returns it, on every route. */
export function errorResult(res: Response, body: Record<string, unknown>): VerifyError {
  const message = typeof body.message === 'string' ? body.message : '';
  const creditsRemaining = creditsOf(res);
  if (typeof body.code === 'number' && CODES.has(body.code)) {
    return { status: 'error', kind: 'account', httpStatus: res.status, code: body.code as ErrorCode, message, ...creditsRemaining };
  }
  if (body.code === ERROR_CODES.RECHECK_LIMIT) return { status: 'error', kind: 'rate_limited', httpStatus: res.status, code: ERROR_CODES.RECHECK_LIMIT, message, ...creditsRemaining };
  const kind =
    res.status === 200 ? 'verification' : res.status === 429 ? 'rate_limited' : res.status === 503 ? 'unavailable' : res.status < 500 ? 'invalid_request' : 'server_error';
  return { status: 'error', kind, httpStatus: res.status, message, ...creditsRemaining };
}

/** Only present when the server sent it, so results compare equal to plain objects. */
function creditsOf(res: Response): { creditsRemaining?: number } {
  const credits = creditsHeader(res.headers.get('x-credits-remaining'));
  return credits === undefined ? {} : { creditsRemaining: credits };
}

function creditsHeader(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

function connectErrorCode(err: unknown): string | null {
  // undici: TypeError('fetch failed', { cause: { code } }); browsers give no code and are not retried.
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return code;
    const nested = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(nested)) for (const inner of nested) if (NOT_CONNECTED.has(String((inner as { code?: unknown })?.code))) return String((inner as { code: unknown }).code);
  }
  return null;
}

/** `fetch failed` says little; its cause says what happened. */
function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message ?? 'error'} (${cause})` : String(e.message ?? err);
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SlipgateError('aborted', 'verification aborted by the caller', 0));
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new SlipgateError('aborted', 'verification aborted by the caller', 0));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
