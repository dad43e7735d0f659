// The checkout page's address of a payment request (docs/payments.md#checkout-page):
// PUBLIC_URL/checkout/<id>/<token>, where the token is an HMAC of the id
// under a key derived from SECRETS_KEY. Nothing is stored, so every answer
// (create, read, list) can give the link again, it survives restarts, and
// every instance sharing SECRETS_KEY agrees on it; without the key the id
// alone never gives the token. The shop's signature key for the redirect
// back (successUrl) is derived from the same key, per account.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const CHECKOUT_PATH = '/checkout';
const TOKEN = /^[A-Za-z0-9_-]{22}$/;

export interface CheckoutLinks {
  /** The page's URL, or null when PUBLIC_URL or SECRETS_KEY is unset. */
  url(requestId: string): string | null;
  /** Whether `token` is the request's (compared in constant time). */
  matches(requestId: string, token: string): boolean;
  /** The account's secret for checking the redirect's signature (docs/payments.md), or null without SECRETS_KEY. */
  accountSecret(accountId: string): string | null;
}

export function checkoutLinks(opts: { publicUrl?: string | undefined; secretsKey?: Buffer | null | undefined }): CheckoutLinks {
  const key = opts.secretsKey ? Buffer.from(hkdfSync('sha256', opts.secretsKey, Buffer.alloc(0), 'slipgate checkout link v1', 32)) : null;
  const signing = opts.secretsKey ? Buffer.from(hkdfSync('sha256', opts.secretsKey, Buffer.alloc(0), 'slipgate checkout return v1', 32)) : null;
  const token = (id: string) => createHmac('sha256', key!).update(id).digest().subarray(0, 16).toString('base64url');
  return {
    url: (id) => (key && opts.publicUrl ? `${opts.publicUrl}${CHECKOUT_PATH}/${id}/${token(id)}` : null),
    matches(id, given) {
      if (!key || !TOKEN.test(given)) return false;
      return timingSafeEqual(Buffer.from(token(id)), Buffer.from(given));
    },
    accountSecret: (accountId) => (signing ? `cks_${createHmac('sha256', signing).update(accountId).digest('base64url')}` : null),
  };
}

/** What the redirect to successUrl signs: the request and its state, in this order. */
const checkoutSignedText = (paymentRequest: string, status: string) => `slipgate.checkout.v1:${paymentRequest}:${status}`;

/** The `signature` query value: hex HMAC-SHA256 of checkoutSignedText under the account's checkout secret. */
export const checkoutSignature = (secret: string, paymentRequest: string, status: string) => createHmac('sha256', secret).update(checkoutSignedText(paymentRequest, status)).digest('hex');
