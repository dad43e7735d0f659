// The payment request routes of the public listener (docs/payments.md):
// create, read by id or reference, cancel, and the QR as a picture. Same
// x-api-key, key gate and brake (keyed.ts), error envelope and codes as
// POST /api/v1/verify.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import QRCode from 'qrcode';
import { ACCOUNT_ERRORS, REFERENCE_CONFLICT } from '../domain/errors.js';
import type { Store } from '../domain/ports/store.js';
import { paymentFacts } from '../domain/payments/events.js';
import { shownPaymentRequest } from '../domain/rechecks/view.js';
import { parsePaymentRequestBody } from '../domain/payments/input.js';
import { liveAccountOf } from '../domain/payments/key-auth.js';
import { PaymentRequestRefused, type PaymentRequestService } from '../domain/payments/service.js';
import type { PaymentRequest } from '../domain/payments/types.js';
import { methodNotAllowed, sendError } from './json-errors.js';
import { callerOf } from './keyed.js';
import { ACCOUNT_STATUS } from './verify-answer.js';

export const PAYMENT_REQUESTS_PATH = '/api/v1/payment-requests';
/** A create body is a few short fields. */
const MAX_BODY_BYTES = 4096;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export interface PaymentRouteDeps {
  service: PaymentRequestService;
  store: Store;
  /** The request's checkout page (PUBLIC_URL and SECRETS_KEY set), else null. */
  checkoutUrl?: (requestId: string) => string | null;
  /** Why checkoutUrl is null on every request (http/checkout/base-url.ts), said in the x-checkout-url-missing header; null or absent: it is not. */
  checkoutUrlMissing?: string | null;
}

/** On every payment request answer of a server that gives no checkout links: why (docs/payments.md#checkout-page). */
const CHECKOUT_MISSING_HEADER = 'x-checkout-url-missing';

/** `keyed`: the key gate every keyed route goes through (keyed.ts). */
export function paymentRoutes(deps: PaymentRouteDeps & { keyed: RequestHandler }, byKey: RequestHandler): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const body = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  const missing = deps.checkoutUrlMissing;
  if (missing) {
    router.use((_req, res, next) => {
      res.set(CHECKOUT_MISSING_HEADER, missing);
      next();
    });
  }
  const success = (request: PaymentRequest) => answer(request, deps.checkoutUrl?.(request.id) ?? null);
  // A read shows the slip being re-checked, if any (`verifying`, docs/payments.md#re-checks).
  const found = async (res: Response, request: PaymentRequest | null) =>
    request
      ? res.status(200).json({ status: 'success', data: { ...(await shownPaymentRequest(deps.store, request)), ...links(request, deps.checkoutUrl?.(request.id) ?? null) } })
      : sendError(res, 404, 'payment request not found');

  router.post('/', byKey, authenticated(deps), body, async (req, res) => {
    const parsed = parseJson(req);
    if (!parsed.ok) return sendError(res, parsed.status, parsed.message);
    const input = parsePaymentRequestBody(parsed.value);
    if (!input.ok) return sendError(res, 400, input.message);
    try {
      const made = await deps.service.create(accountOf(res), input.input);
      // A reused order number must not read the old order's state (maybe paid) as the new one's.
      if (made.outcome === 'conflict') return void res.status(409).json({ status: 'error', ...REFERENCE_CONFLICT });
      res.status(made.outcome === 'created' ? 201 : 200).json(success(made.request));
    } catch (err) {
      if (err instanceof PaymentRequestRefused) return sendError(res, 400, err.message);
      throw err;
    }
  });
  router.get('/', byKey, authenticated(deps), async (req, res) => {
    const reference = req.query.reference;
    if (typeof reference !== 'string' || reference === '') return sendError(res, 400, 'give ?reference=<your order id>, or ask by id: /api/v1/payment-requests/{id}');
    found(res, await deps.service.byReference(accountOf(res), reference));
  });
  router.all('/', methodNotAllowed('GET, POST'));
  router.get('/:id', byKey, authenticated(deps), async (req, res) => found(res, await deps.service.get(accountOf(res), String(req.params.id))));
  router.all('/:id', methodNotAllowed('GET'));
  router.post('/:id/cancel', byKey, authenticated(deps), async (req, res) => {
    const after = await deps.service.cancel(accountOf(res), String(req.params.id));
    if (!after) return sendError(res, 404, 'payment request not found');
    // Cancelling twice is harmless; a paid or expired request stays as it is.
    if (after.status !== 'cancelled') return sendError(res, 409, `payment request is ${after.status}: only a pending one can be cancelled`);
    res.status(200).json(success(after));
  });
  router.all('/:id/cancel', methodNotAllowed('POST'));
  router.get('/:id/qr.png', byKey, authenticated(deps), async (req, res) => {
    const request = await deps.service.get(accountOf(res), String(req.params.id));
    if (!request) return sendError(res, 404, 'payment request not found');
    res.type('image/png').send(await QRCode.toBuffer(request.promptpay, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 }));
  });
  router.get('/:id/qr.svg', byKey, authenticated(deps), async (req, res) => {
    const request = await deps.service.get(accountOf(res), String(req.params.id));
    if (!request) return sendError(res, 404, 'payment request not found');
    res.type('image/svg+xml').send(await QRCode.toString(request.promptpay, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
  });
  return router;
}

/** The request as every answer shows it, with its checkout page's address and where the page returns to. */
function answer(request: PaymentRequest, checkoutUrl: string | null) {
  return { status: 'success', data: { ...paymentFacts(request), ...links(request, checkoutUrl) } };
}

const links = (request: PaymentRequest, checkoutUrl: string | null) => ({ checkoutUrl, successUrl: request.successUrl });

const accountOf = (res: Response): string => {
  const accountId = res.locals.paymentAccountId as string | undefined;
  if (accountId === undefined || accountId !== callerOf(res).accountId) throw new Error('a payment request route read its account without authenticated()');
  return accountId;
};

/** The key gate (keyed.ts: brake, lookup, refusals), then the key's account must be live (1022), or the verify route's account error. */
function authenticated(deps: PaymentRouteDeps & { keyed: RequestHandler }): RequestHandler {
  return (req, res, next) =>
    deps.keyed(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      liveAccountOf(deps.store, callerOf(res).accountId).then((auth) => {
        if (!auth.ok) {
          const { code, message } = ACCOUNT_ERRORS[auth.error];
          return void res.status(ACCOUNT_STATUS[auth.error]).json({ status: 'error', code, message });
        }
        res.locals.paymentAccountId = auth.accountId;
        next();
      }, next);
    });
}

function parseJson(req: Request): { ok: true; value: unknown } | { ok: false; status: number; message: string } {
  const type = req.headers['content-type'];
  if (!type || !JSON_TYPE.test(type)) return { ok: false, status: 415, message: 'Content-Type must be application/json' };
  try {
    return { ok: true, value: JSON.parse((Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'request body is not valid JSON' };
  }
}
