// The public listener: POST /api/v1/verify (docs/contract.md#route), the
// payment request routes (docs/payments.md), POST /line/webhook/<channel id>
// when LINE channels are served (docs/line.md); nothing else (health lives on
// the admin listener). `doctor --go-live` reaches it through the proxy with
// a challenge header on the verify route (docs/deploy.md#go-live-check).
import express, { type Request, type RequestHandler, type Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Logger } from 'pino';
import { CHALLENGE, CHALLENGE_HEADER, FORWARDED_FOR_HEADER, PROOF_HEADER } from '../domain/admin/instance-proof.js';
import type { VerificationService } from '../domain/verify/service.js';
import type { BodyRead, VerifyTrace } from '../domain/verify/types.js';
import { bodyReadProblem, errorHandler, methodNotAllowed, notFound } from './json-errors.js';
import { verifyAnswer, type VerifyAnswer } from './verify-answer.js';
import { PAYMENT_REQUESTS_PATH, paymentRoutes, type PaymentRouteDeps } from './payment-routes.js';
import { keyed } from './keyed.js';
import { VERIFICATIONS_PATH, verificationRoutes } from './verification-routes.js';
import { accessLog } from './access-log.js';
import { perIpLimit, perKeyLimit, type RateLimitSettings } from './rate-limit.js';
import { requestId } from './request-id.js';
import type { Tarpit } from './tarpit.js';
import { mountLineWebhook } from './line-webhook-route.js';
import { multipartPicture, rawPicture } from './picture-body.js';
import { holdRoomForPicture, isPictureSized, PictureBudget } from './picture-budget.js';
import { pictureForm } from '../domain/verify/picture-body.js';
import { mountCheckout, type CheckoutDeps } from './checkout/routes.js';
import type { LineBridge } from '../domain/line/bridge.js';
import type { Metrics } from '../metrics/metrics.js';
import { classifyOutcome, classifyStatus, type OutcomeLabel } from '../metrics/outcomes.js';

export const VERIFY_PATH = '/api/v1/verify';

export interface PublicAppDeps {
  verification: VerificationService;
  logger: Logger;
  maxBodyBytes: number;
  /** Cap on image bodies; the body is read up to it, and only an image body may pass maxBodyBytes. */
  maxImageBytes?: number;
  /** Abuse limits (0 = off) and the proxies whose X-Forwarded-For names the client. */
  limits?: RateLimitSettings & { TRUST_PROXY_HOPS: number };
  metrics?: Metrics;
  /** The payment request routes; absent: not served. */
  payments?: PaymentRouteDeps;
  /** The LINE bridge: POST /line/webhook/<channel id> (docs/line.md). */
  line?: LineBridge;
  /** The payment requests' checkout pages (docs/payments.md#checkout-page); absent: not served. */
  checkout?: CheckoutDeps;
  /** Bytes of picture bodies held at once (IMAGE_BYTES_IN_FLIGHT); absent: no bound but the size limit. */
  pictureBudget?: PictureBudget;
  /** Holds the brake's 429s (tarpit.ts); absent: answered at once. */
  tarpit?: Tarpit;
  /** The proof a challenged 1020 answer carries (domain/admin/instance-proof.ts); absent or null: SECRETS_KEY is not set. */
  instanceProof?: (challenge: string) => string | null;
}

export function createPublicApp(deps: PublicAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Exactly one path: /API/V1/VERIFY and /api/v1/verify/ are not it.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  app.use(requestId, accessLog(deps.logger, { describe: (req, res) => (req.path === VERIFY_PATH ? { message: 'verification', fields: verificationFields(res) } : undefined) }));
  const { metrics } = deps;
  // Counted where every answer passes, rate-limit refusals included.
  if (metrics) app.use(observeVerify(metrics));
  if (deps.limits?.TRUST_PROXY_HOPS) app.set('trust proxy', deps.limits.TRUST_PROXY_HOPS);
  // Order matters; see rate-limit.ts. Per IP: every request, any route but
  // the LINE webhook's signed ones: every request of a channel comes from
  // LINE's few addresses, and each customer has a limit of their own. Its
  // refused ones are counted (line-webhook-route.ts).
  const byIp = perIpLimit(deps.limits?.RATE_LIMIT_PER_IP_PER_MIN ?? 0, deps.logger, () => metrics?.refused('ip_rate_limit'));
  if (deps.line) mountLineWebhook(app, deps.line, deps.logger, byIp);
  if (byIp) app.use(byIp);
  const byKey: RequestHandler =
    perKeyLimit(deps.limits?.RATE_LIMIT_PER_KEY_PER_MIN ?? 0, deps.logger, () => metrics?.refused('key_rate_limit')) ?? ((_req, _res, next) => next());

  // The body is read raw, and only when the verification path asks for it:
  // the key checks come first (docs/contract.md#order-of-checks), so a
  // refused key never costs its body's bytes, and JSON parsing happens
  // inside the verification path. The image limit can only be applied once
  // the body says what it carries.
  const rawBody = express.raw({ type: () => true, limit: Math.max(deps.maxBodyBytes, deps.maxImageBytes ?? 0) });
  // A body that cannot be read is a body error like any other.
  const readRaw = (req: Request, res: Response): Promise<BodyRead> =>
    new Promise((resolve, reject) =>
      rawBody(req, res, (err?: unknown) => {
        if (!err) return resolve({ ok: true, contentType: req.headers['content-type'], bytes: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) });
        const problem = bodyReadProblem(err);
        if (problem) resolve({ ok: false, problem });
        else reject(err instanceof Error ? err : new Error('request body could not be read'));
      }),
    );
  // A picture may also come as bytes (picture-body.ts): the same limits, the same verification.
  const bodyReader = (req: Request, res: Response) => async (): Promise<BodyRead> => {
    // A picture's bytes are read only once they fit in the process's budget (picture-budget.ts).
    if (deps.pictureBudget && isPictureSized(req, deps.maxBodyBytes) && !(await holdRoomForPicture(deps.pictureBudget, req, res, deps.maxImageBytes ?? deps.maxBodyBytes))) {
      return { ok: false, busy: 'too many pictures are being read right now; retry shortly' };
    }
    const read = await readRaw(req, res);
    if (!read.ok || !('contentType' in read)) return read;
    const form = pictureForm(read.contentType);
    if (form === 'raw') return rawPicture(read.bytes, req.originalUrl);
    if (form === 'multipart') return multipartPicture(read.bytes, read.contentType!);
    return read;
  };
  app.post(VERIFY_PATH, byKey, async (req: Request, res: Response) => {
    const header = req.headers['x-api-key'];
    const trace: VerifyTrace = {};
    res.locals.verifyTrace = trace;
    const outcome = await deps.verification.verify({
      apiKey: typeof header === 'string' ? header : undefined,
      readBody: bodyReader(req, res),
      maxQrcodeBodyBytes: deps.maxBodyBytes,
      requestId: res.locals.requestId as string,
      clientIp: req.ip,
      // IPv6 by its /56, as the per-IP limit counts (one customer's allocation, not one address of billions).
      clientAddress: req.ip === undefined ? undefined : ipKeyGenerator(req.ip),
      clientIpFrom: addressSource(req, deps.limits?.TRUST_PROXY_HOPS ?? 0),
      trace,
    });
    res.locals.verifyOutcome = classifyOutcome(outcome);
    if (outcome.kind === 'busy') metrics?.refused('inflight');
    if (outcome.kind === 'throttled') metrics?.refused('auth_failures');
    const answer = verifyAnswer(outcome);
    if (outcome.kind === 'account_error' && outcome.error === 'missing_api_key') Object.assign(answer.headers, proofHeaders(req, deps.instanceProof));
    if (outcome.kind === 'throttled' && deps.tarpit) deps.tarpit.answer(res, () => sendAnswer(res, answer));
    else sendAnswer(res, answer);
  });
  app.all(VERIFY_PATH, methodNotAllowed('POST'));
  // Every other keyed route takes its key through the same gate as the verify route: one brake policy.
  const keyedRoute = keyed(deps.verification.keyGate, { tarpit: deps.tarpit, metrics });
  if (deps.payments) app.use(PAYMENT_REQUESTS_PATH, paymentRoutes({ ...deps.payments, keyed: keyedRoute }, byKey));
  if (deps.payments) app.use(VERIFICATIONS_PATH, verificationRoutes({ store: deps.payments.store, keyed: keyedRoute }, byKey));
  if (deps.checkout) mountCheckout(app, deps.checkout);
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * What `doctor --go-live` checks, on a keyless request that sent a
 * well-formed challenge header: the proof that this is its deployment, and
 * how many addresses X-Forwarded-For held on arrival (the proxies that wrote
 * one, to compare with TRUST_PROXY_HOPS). Headers only: the 1020 body stays
 * the contract's. Nothing a caller did not send or could not learn.
 */
function proofHeaders(req: Request, proof: PublicAppDeps['instanceProof']): Record<string, string> {
  const challenge = req.headers[CHALLENGE_HEADER];
  if (typeof challenge !== 'string' || !CHALLENGE.test(challenge)) return {};
  const header = [req.headers['x-forwarded-for'] ?? []].flat().join(',');
  const forwardedFor = header.split(',').filter((part) => part.trim() !== '').length;
  const answer = proof?.(challenge);
  return { [FORWARDED_FOR_HEADER]: String(forwardedFor), ...(answer ? { [PROOF_HEADER]: answer } : {}) };
}

function sendAnswer(res: Response, answer: VerifyAnswer): void {
  res.set(answer.headers).status(answer.status).json(answer.body);
}

/**
 * What the verify route's log line says beyond the request: the outcome
 * (`verified`, the failure kind, or the refusal and its code), who asked and
 * which bank domain answered. Never the key or the QR.
 */
function verificationFields(res: Response): Record<string, unknown> {
  const label = (res.locals.verifyOutcome as OutcomeLabel | undefined) ?? classifyStatus(res.statusCode);
  const trace = (res.locals.verifyTrace as VerifyTrace | undefined) ?? {};
  return {
    outcome: label.outcome === 'success' ? 'verified' : label.outcome,
    ...(label.code === undefined ? {} : { code: label.code }),
    accountId: trace.accountId ?? null,
    keyId: trace.keyId ?? null,
    bank: trace.upstream ?? null,
    ...(trace.upstreamMs === undefined ? {} : { bankMs: trace.upstreamMs }),
    ...(trace.clientIp === undefined ? {} : { clientIp: trace.clientIp, clientIpFrom: trace.clientIpFrom }),
  };
}

/** How express found req.ip: the connection, or X-Forwarded-For counted TRUST_PROXY_HOPS back from it. */
function addressSource(req: Request, hops: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (hops === 0) return `the connection's address; TRUST_PROXY_HOPS=0`;
  return `X-Forwarded-For with TRUST_PROXY_HOPS=${hops}, from the proxy at ${peer}`;
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
