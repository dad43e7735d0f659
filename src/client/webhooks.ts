// `slipgate/client/webhooks`: checks the `slipgate-signature` header of a
// webhook slipgate sent (Stripe's scheme, docs/webhooks.md) in the receiving
// server (Node). Pass the body exactly as received: a JSON parse and
// re-serialise changes the bytes and the signature with them.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'slipgate-signature';

export interface VerifyWebhookOptions {
  /** How old (or how far ahead) a signature's timestamp may be; default 300 s. Replays outside it are refused. */
  toleranceSeconds?: number;
  /** The receiver's clock (tests); default now. */
  now?: Date;
}

export type WebhookSignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' };

/**
 * True-or-why for one delivery: the header is `t=<unix>,v1=<hex>` (several
 * v1 entries allowed, e.g. while a secret is rotated), and one v1 must equal
 * HMAC-SHA256(secret, `${t}.${rawBody}`), compared in constant time, with t
 * within the tolerance of now.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now = new Date() }: VerifyWebhookOptions = {},
): WebhookSignatureCheck {
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', secret).update(`${parsed.t}.`).update(body).digest();
  const matches = parsed.v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'no_matching_signature' };
  if (Math.abs(now.getTime() / 1000 - parsed.t) > toleranceSeconds) return { ok: false, reason: 'timestamp_outside_tolerance' };
  return { ok: true, timestamp: parsed.t };
}

function parseHeader(header: string | null | undefined): { t: number; v1: string[] } | null {
  if (!header || header.length > 4096) return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  return t !== null && v1.length > 0 ? { t, v1 } : null;
}

export type CheckoutReturnCheck = { ok: true; paymentRequest: string; status: 'paid' } | { ok: false; reason: 'malformed' | 'bad_signature' };

/**
 * Checks the address the checkout page sent a customer back to (successUrl
 * with `paymentRequest`, `status` and `signature` added to its query,
 * docs/payments.md#checkout-page): `signature` must be the hex
 * HMAC-SHA256, under the account's checkout secret (`slipgate payments
 * checkout-secret <account>`), of `slipgate.checkout.v1:<paymentRequest>:<status>`.
 * A valid one says that request is paid; the shop's own query is not signed.
 */
export function verifyCheckoutReturn(url: string | URL, secret: string): CheckoutReturnCheck {
  let query: URLSearchParams;
  try {
    query = new URL(url).searchParams;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const [paymentRequest, status, signature] = ['paymentRequest', 'status', 'signature'].map((name) => query.getAll(name));
  if (paymentRequest?.length !== 1 || status?.length !== 1 || signature?.length !== 1 || status[0] !== 'paid' || !/^[0-9a-f]{64}$/.test(signature[0]!)) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = createHmac('sha256', secret).update(`slipgate.checkout.v1:${paymentRequest[0]}:${status[0]}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature[0]!, 'hex'))) return { ok: false, reason: 'bad_signature' };
  return { ok: true, paymentRequest: paymentRequest[0]!, status: 'paid' };
}

/** The slip that paid a payment request, or a late transfer's (amounts in baht, times in Bangkok time). */
export interface WebhookPayingSlip {
  verificationId: string;
  transactionId: string;
  sendingBank: string;
  amount: number;
  transferredAt: string;
}

/** A payment request as its events carry it: `GET /api/v1/payment-requests/{id}` without `promptpay`. */
export interface WebhookPaymentRequest {
  id: string;
  reference: string;
  amount: number;
  /** Under unique amounts only. */
  requestedAmount?: number;
  status: 'pending' | 'paid' | 'expired' | 'cancelled';
  /** The receiver's id (`rcv_…`). */
  receiver: string;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  paidBy: WebhookPayingSlip | null;
}

/** A slip being re-checked (its reference masked to the last 4 characters; times in Bangkok time). */
export interface WebhookSlipBeingChecked {
  verificationId: string;
  sendingBank: string;
  transRef: string;
  since: string;
  deadline: string;
}

interface EventOf<T extends string, D> {
  id: string;
  type: T;
  createdAt: string;
  data: D;
}

/** A webhook body as slipgate sends it (docs/webhooks.md): parse the raw body after verifyWebhookSignature says ok. */
export type WebhookEvent =
  | EventOf<
      'verification.succeeded',
      { verificationId: string; requestId: string; transactionId: string; amount: number; sendingBank: string; receivingBank: string; source: 'qrcode' | 'image' | 'line'; verifiedAt: string }
    >
  /** `resolvedBy: "staff"` when staff attached the slip (docs/payments.md#staff-resolution). */
  | EventOf<'payment_request.paid', WebhookPaymentRequest & { resolvedBy?: 'staff' }>
  | EventOf<'payment_request.expired', WebhookPaymentRequest>
  | EventOf<'payment_request.late_transfer', WebhookPaymentRequest & { transfer: WebhookPayingSlip }>
  /** A slip sent for the request was not confirmed by its bank before the re-check's deadline (docs/payments.md#re-checks): nothing charged. */
  | EventOf<'payment_request.slip_unconfirmed', WebhookPaymentRequest & { slip: WebhookSlipBeingChecked; reason: 'not_confirmed' | 'no_credit' }>
  /** A slip sent with `"recheck": true` was not confirmed before its deadline: nothing charged. */
  | EventOf<'verification.unconfirmed', WebhookSlipBeingChecked & { requestId: string; reason: 'not_confirmed' | 'no_credit' }>
  /** The account's credits fell below its threshold (`creditsLowAt`): once per fall. */
  | EventOf<'account.credits_low', { accountId: string; credits: number; creditsLowAt: number }>;
