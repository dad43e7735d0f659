// The public listener: exactly one route, POST /api/v1/verify (spec §4).
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { VerificationService } from '../domain/verify.js';
import type { BodyProblem } from '../domain/verify-request.js';
import { bodyReadProblem, errorHandler, methodNotAllowed, notFound } from './json-errors.js';
import { accessLog } from './access-log.js';
import { perIpLimit, perKeyLimit, type RateLimitSettings } from './rate-limit.js';
import { requestId } from './request-id.js';
import type { Metrics } from '../metrics/metrics.js';
import { classifyOutcome, classifyStatus, type OutcomeLabel } from '../metrics/outcomes.js';

export const VERIFY_PATH = '/api/v1/verify';
/** The account's balance after the request, on answers about a live account. */
export const CREDITS_HEADER = 'x-credits-remaining';

export interface PublicAppDeps {
  verification: VerificationService;
  logger: Logger;
  maxBodyBytes: number;
  /** Cap on image bodies; the body is read up to it, and only an image body may pass maxBodyBytes. */
  maxImageBytes?: number;
  /** Abuse limits (0 = off) and the proxies whose X-Forwarded-For names the client. */
  limits?: RateLimitSettings & { TRUST_PROXY_HOPS: number };
  metrics?: Metrics;
}

export function createPublicApp(deps: PublicAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Exactly one path: /API/V1/VERIFY and /api/v1/verify/ are not it.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  app.use(requestId, accessLog(deps.logger));
  const { metrics } = deps;
  // Counted where every answer passes, rate-limit refusals included.
  if (metrics) app.use(observeVerify(metrics));
  if (deps.limits?.TRUST_PROXY_HOPS) app.set('trust proxy', deps.limits.TRUST_PROXY_HOPS);
  // Order matters; see rate-limit.ts. Per IP: every request, any route.
  const byIp = perIpLimit(deps.limits?.RATE_LIMIT_PER_IP_PER_MIN ?? 0, deps.logger, () => metrics?.refused('ip_rate_limit'));
  if (byIp) app.use(byIp);
  const byKey: RequestHandler =
    perKeyLimit(deps.limits?.RATE_LIMIT_PER_KEY_PER_MIN ?? 0, deps.logger, () => metrics?.refused('key_rate_limit')) ?? ((_req, _res, next) => next());

  // The body is read raw: auth comes before body checks (spec §5 order), so
  // JSON parsing happens inside the verification path, not here.
  // The image limit can only be applied once the body says what it carries.
  const rawBody = express.raw({ type: () => true, limit: Math.max(deps.maxBodyBytes, deps.maxImageBytes ?? 0) });
  // A body that cannot be read is a body error like any other: it is answered
  // after the key checks, not before them.
  const readBody: RequestHandler = (req, res, next) =>
    rawBody(req, res, (err?: unknown) => {
      const problem = err ? bodyReadProblem(err) : null;
      if (err && !problem) return next(err);
      if (problem) res.locals.bodyProblem = problem;
      next();
    });
  app.post(VERIFY_PATH, byKey, readBody, async (req: Request, res: Response) => {
    const header = req.headers['x-api-key'];
    const outcome = await deps.verification.verify({
      apiKey: typeof header === 'string' ? header : undefined,
      contentType: req.headers['content-type'],
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      bodyProblem: res.locals.bodyProblem as BodyProblem | undefined,
      maxQrcodeBodyBytes: deps.maxBodyBytes,
      requestId: res.locals.requestId as string,
      clientIp: req.ip,
    });
    res.locals.verifyOutcome = classifyOutcome(outcome);
    if (outcome.creditsRemaining !== undefined) res.setHeader(CREDITS_HEADER, String(outcome.creditsRemaining));
    // 429 here is the per-account in-flight cap: a slot frees within seconds.
    if (outcome.httpStatus === 429) {
      metrics?.refused('inflight');
      res.setHeader('retry-after', '1');
    }
    res.status(outcome.httpStatus).json(outcome.body);
  });
  app.all(VERIFY_PATH, methodNotAllowed('POST'));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

function observeVerify(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path !== VERIFY_PATH) return next();
    const started = performance.now();
    res.once('finish', () => {
      const label = (res.locals.verifyOutcome as OutcomeLabel | undefined) ?? classifyStatus(res.statusCode);
      metrics.verification(label.outcome, label.code, label.result, (performance.now() - started) / 1000);
    });
    next();
  };
}
