// The checkout page of a payment request on the public listener, with no API
// key (docs/payments.md#checkout-page): /checkout/<id>/<token>, where the
// token is the request's (domain/payments/checkout-link.ts); anything else
// is 404. The page, its framed QR picture, a small status JSON for page.js,
// and the slip upload, which pays exactly as POST /api/v1/verify with
// `paymentRequest` and `image` (VerificationService.verifyForCheckout): a
// slip the bank does not know yet is kept for re-checks and the page shows
// it being verified until …/checked can tell how that ended.
// Registered on the app itself, so the access log sees the full path (with
// the token redacted, log.ts scrubSecrets).
import type express from 'express';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { CheckoutLinks } from '../../domain/payments/checkout-link.js';
import { CHECKOUT_PATH } from '../../domain/payments/checkout-link.js';
import { isPaymentRequestId } from '../../domain/payments/input.js';
import { bahtOf } from '../../domain/payments/money.js';
import type { PaymentRequest } from '../../domain/payments/types.js';
import type { Store } from '../../domain/ports/store.js';
import type { VerificationService, VerifyOutcome } from '../../domain/verify/service.js';
import { holdRoomForPicture, type PictureBudget } from '../picture-budget.js';
import { endedVerdict, successRedirect, verdictOf } from './answers.js';
import { CheckoutAttempts } from './attempts.js';
import { checkoutPage, PAGE_CSS, PAGE_JS, type PageView } from './page.js';
import { QrPictures } from './qr-pictures.js';
import { pageState, storedState } from './state.js';
import { pickLang, type TextKey } from './texts.js';
import { readSlipUpload } from './upload.js';

export interface CheckoutDeps {
  links: CheckoutLinks;
  store: Store;
  verification: VerificationService;
  /** The verify route's cap on a picture's bytes (MAX_IMAGE_BYTES); pixels are the image pool's. */
  maxImageBytes: number;
  /** CHECKOUT_MAX_CHECKS. */
  maxChecks: number;
  /** Page loads (and pictures, status polls) per client address per minute (per process). */
  perAddressPerMinute?: number;
  /** Slip uploads per client address per minute (per process). */
  uploadsPerAddressPerMinute?: number;
  /** IMAGE_BYTES_IN_FLIGHT, shared with the verify route: an upload is read only once its bytes fit. */
  pictureBudget?: PictureBudget;
  now?: () => Date;
}

const PAGE = `${CHECKOUT_PATH}/:id/:token`;

export function mountCheckout(app: express.Express, deps: CheckoutDeps): void {
  const now = deps.now ?? (() => new Date());
  const attempts = new CheckoutAttempts(deps.store, deps.maxChecks);
  const qrPictures = new QrPictures();
  const pages = addressLimit(deps.perAddressPerMinute ?? 120);
  const uploads = addressLimit(deps.uploadsPerAddressPerMinute ?? 10);

  app.get(`${CHECKOUT_PATH}/assets/page.css`, pages, (_req, res) => void safe(res).type('text/css').set('cache-control', 'public, max-age=3600').send(PAGE_CSS));
  app.get(`${CHECKOUT_PATH}/assets/page.js`, pages, (_req, res) => void safe(res).type('text/javascript').set('cache-control', 'public, max-age=3600').send(PAGE_JS));

  /** The request the path names, when its token is right; otherwise the 404 page is sent. */
  const requestOf = async (req: Request, res: Response): Promise<PaymentRequest | null> => {
    const id = String(req.params.id);
    const token = String(req.params.token);
    const request = isPaymentRequestId(id) && deps.links.matches(id, token) ? await deps.store.getPaymentRequest(id) : null;
    if (!request) safe(res).status(404).type('text/html').send('<!doctype html><meta charset="utf-8"><title>404</title><p>Not found / ไม่พบหน้านี้</p>');
    return request;
  };
  const langOf = (req: Request) => pickLang(req.query.lang, req.headers['accept-language']);
  const pageUrl = (req: Request, request: PaymentRequest) => `${CHECKOUT_PATH}/${request.id}/${String(req.params.token)}?lang=${langOf(req)}`;
  const render = async (req: Request, res: Response, request: PaymentRequest, verdict?: TextKey, status = 200) => {
    const [account, { state, checking }] = await Promise.all([deps.store.getAccount(request.accountId), pageState(deps.store, request, now())]);
    const view: PageView = {
      lang: langOf(req),
      base: `${CHECKOUT_PATH}/${request.id}/${String(req.params.token)}`,
      shop: account?.name ?? '',
      amount: bahtOf(request.amount).toFixed(2),
      reference: request.reference,
      state,
      ...(checking ? { checking } : {}),
      expiresAt: request.expiresAt,
      ...(verdict ? { verdict } : {}),
    };
    safe(res, request.successUrl).status(status).type('text/html').send(checkoutPage(view));
  };

  app.get(PAGE, pages, async (req, res) => {
    const request = await requestOf(req, res);
    if (request) await render(req, res, request);
  });
  app.get(`${PAGE}/status.json`, pages, async (req, res) => {
    const request = await requestOf(req, res);
    if (request) safe(res).json({ status: (await pageState(deps.store, request, now())).state });
  });
  // Where a verifying page goes when status.json stops saying verifying (page.js, or the no-JavaScript
  // refresh): paid, back to the shop as the upload's own answer would have gone; open again, the page
  // with why, from how its slip's re-check (?slip=) ended: most often the bank never showed it.
  app.get(`${PAGE}/checked`, pages, async (req, res) => {
    const request = await requestOf(req, res);
    if (!request) return;
    const { state } = await pageState(deps.store, request, now());
    if (state === 'pending') {
      const slip = typeof req.query.slip === 'string' && /^req_\w{1,64}$/.test(req.query.slip) ? await deps.store.getRecheck(req.query.slip) : null;
      const ended = slip?.paymentRequestId === request.id ? endedVerdict(slip) : undefined;
      return render(req, res, request, ended ?? 'verdict_unconfirmed');
    }
    safe(res).redirect(303, (state === 'paid' && successRedirect(request, deps.links)) || pageUrl(req, request));
  });
  app.get(`${PAGE}/qr.png`, pages, async (req, res) => {
    const request = await requestOf(req, res);
    if (!request) return;
    const account = await deps.store.getAccount(request.accountId);
    const png = await qrPictures.of(request.id, request.promptpay, { amount: bahtOf(request.amount).toFixed(2), shop: account?.name ?? '' });
    if (req.query.download !== undefined) res.set('content-disposition', `attachment; filename="promptpay-${request.id}.png"`);
    safe(res).type('image/png').send(png);
  });
  /**
   * A slip uploaded for a request already paid: read here (no bank, no
   * credit) only to say whether it is the slip that paid it, or another.
   */
  const answerPaid = async (req: Request, res: Response, request: PaymentRequest) => {
    if (deps.pictureBudget && !(await holdRoomForPicture(deps.pictureBudget, req, res, deps.maxImageBytes))) {
      req.resume();
      return render(req, res, request, 'verdict_already_paid', 409);
    }
    const upload = await readSlipUpload(req, deps.maxImageBytes);
    const slip = upload.ok ? await deps.verification.slipOfPicture(request.accountId, upload.image) : null;
    const by = request.paidBy;
    const same = slip !== null && by !== null && slip.sendingBank === by.sendingBank && slip.transRef === by.transactionId;
    return render(req, res, request, same ? 'verdict_paid_by_this_slip' : 'verdict_already_paid', 409);
  };

  app.post(PAGE, uploads, async (req, res) => {
    const request = await requestOf(req, res);
    if (!request) return void req.resume();
    const stored = storedState(request, now());
    if (stored === 'paid') return answerPaid(req, res, request);
    if (stored !== 'pending') {
      req.resume();
      return render(req, res, request, `verdict_${stored}`, 409);
    }
    // Like the verify route's pictures, an upload's bytes wait in the socket until they fit in the process's budget.
    if (deps.pictureBudget && !(await holdRoomForPicture(deps.pictureBudget, req, res, deps.maxImageBytes))) {
      req.resume();
      return render(req, res, request, 'verdict_busy', 429);
    }
    const upload = await readSlipUpload(req, deps.maxImageBytes);
    if (!upload.ok) return render(req, res, request, upload.problem === 'too_large' ? 'verdict_too_large' : upload.problem === 'no_file' ? 'verdict_no_file' : 'verdict_unreadable', 400);
    const taken = await attempts.take(request.id);
    if (!taken.ok) return render(req, res, request, taken.why === 'limit' ? 'verdict_limit' : 'verdict_busy', 429);
    let outcome: VerifyOutcome;
    try {
      outcome = await deps.verification.verifyForCheckout({ request, image: upload.image, requestId: String(res.locals.requestId) });
    } finally {
      taken.release();
    }
    // Kept for re-checks (the bank does not know the slip yet): the page itself, which shows it being verified.
    // A 303 like a paid slip's rather than the API's 202: reloading the answer must not send the slip again.
    if (outcome.kind === 'pending') return void res.redirect(303, pageUrl(req, request));
    const paid = outcome.kind === 'verified' && outcome.paymentRequest?.status === 'paid' && outcome.paymentRequest.reason === undefined;
    if (!paid) return render(req, res, (await deps.store.getPaymentRequest(request.id)) ?? request, verdictOf(outcome), 422);
    res.redirect(303, successRedirect(request, deps.links) ?? pageUrl(req, request));
  });
}

/** A page of its own: no third-party anything, no framing, no referrer carrying the token away. */
/** `returnTo`: the successUrl the form's answer may redirect to (browsers hold a form's redirects to form-action). */
function safe(res: Response, returnTo?: string | null): Response {
  const formAction = returnTo ? `'self' ${new URL(returnTo).origin}` : "'self'";
  return res.set({
    'content-security-policy': `default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': res.get('cache-control') ?? 'no-store',
    'x-frame-options': 'DENY',
  });
}

function addressLimit(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (req, res) => {
      req.resume();
      safe(res).status(429).type('text/html').send('<!doctype html><meta charset="utf-8"><title>429</title><p>Too many tries from this address. Wait a minute. / ลองบ่อยเกินไป กรุณารอสักครู่</p>');
    },
  });
}
