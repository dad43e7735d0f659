// Abuse limits on the public port: requests per minute per client
// IP and per API key, answered with 429 JSON and Retry-After. Counters live
// in this process's memory, so with N processes (WORKERS, several hosts) a
// caller gets up to N times the limit; the per-account in-flight cap in
// VerificationService is what protects upstream capacity.
//
// Order on the verify route, and why:
//   1. per IP, every request, before auth: a brake on any flood, off by default.
//      (On by default, and counting only refused authentications, is the
//      domain's brake: src/domain/keys/failed-auth-brake.ts.)
//   2. per key, only requests that carry a non-empty x-api-key, before the
//      body is read. A request without a key is never counted here, so it
//      always gets the contract's 1020 (unless its IP is over its own limit).
//      A wrong key is counted under its own hash: after N tries a minute the
//      same wrong key gets 429 instead of 1021, which tells a guesser nothing.
// Per-key counters are keyed by the SHA-256 of the header value: a raw key
// never sits in a map.
import type { RequestHandler } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type { Logger } from 'pino';
import { hashSecret } from '../domain/keys/api-key.js';
import { sendError } from './json-errors.js';

export interface RateLimitSettings {
  RATE_LIMIT_PER_KEY_PER_MIN: number;
  RATE_LIMIT_PER_IP_PER_MIN: number;
}

const WINDOW_MS = 60_000;

/** Null when the limit is 0 (off). */
export function perIpLimit(perMinute: number, logger: Logger, onRefused?: () => void): RequestHandler | null {
  if (perMinute <= 0) return null;
  return limiter(perMinute, logger, 'too many requests from this address; retry later', {}, onRefused);
}

/** Null when the limit is 0 (off). */
export function perKeyLimit(perMinute: number, logger: Logger, onRefused?: () => void): RequestHandler | null {
  if (perMinute <= 0) return null;
  return limiter(perMinute, logger, 'too many requests for this API key; retry later', {
    skip: (req) => !apiKeyOf(req.headers['x-api-key']),
    keyGenerator: (req) => hashSecret(apiKeyOf(req.headers['x-api-key'])!),
  }, onRefused);
}

/** The value the verify handler authenticates with (see public-app.ts). */
function apiKeyOf(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && header !== '' ? header : undefined;
}

function limiter(
  perMinute: number,
  logger: Logger,
  message: string,
  extra: Partial<Pick<Options, 'skip' | 'keyGenerator'>>,
  onRefused?: () => void,
): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: perMinute,
    // draft-7 "RateLimit" headers on every answer; Retry-After on 429.
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (_req, res) => {
      onRefused?.();
      sendError(res, 429, message);
    },
    logger: {
      error: (err, msg) => logger.error({ err }, msg ?? 'rate limiter error'),
      warn: (err, msg) => logger.warn({ err }, msg ?? 'rate limiter warning'),
    },
    ...extra,
  });
}
