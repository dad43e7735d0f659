// The SDK's check of the checkout page's return address: the server's own
// signature passes (for the account's secret only), anything altered,
// repeated or missing does not.
import { describe, expect, it } from 'vitest';
import { verifyCheckoutReturn } from '../../src/client/webhooks.js';
import { checkoutLinks, checkoutSignature } from '../../src/domain/payments/checkout-link.js';

const links = checkoutLinks({ secretsKey: Buffer.alloc(32, 7) });
const ID = `pr_${'ab'.repeat(16)}`;
const secret = links.accountSecret('acc_one')!;
const signed = `https://shop.example/back?order=7&paymentRequest=${ID}&status=paid&signature=${checkoutSignature(secret, ID, 'paid')}`;

describe('verifyCheckoutReturn', () => {
  it("accepts the server's signature under the account's secret", () => {
    expect(verifyCheckoutReturn(signed, secret)).toEqual({ ok: true, paymentRequest: ID, status: 'paid' });
    expect(secret).toMatch(/^cks_[A-Za-z0-9_-]{43}$/);
  });

  it("refuses another account's secret, another request, a changed status, repeats and junk", () => {
    expect(verifyCheckoutReturn(signed, links.accountSecret('acc_two')!)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyCheckoutReturn(signed.replace(ID, `pr_${'cd'.repeat(16)}`), secret)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyCheckoutReturn(signed.replace('status=paid', 'status=cancelled'), secret).ok).toBe(false);
    expect(verifyCheckoutReturn(`${signed}&paymentRequest=${ID}`, secret)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyCheckoutReturn(signed.replace(/signature=[0-9a-f]+/, 'signature=zz'), secret)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyCheckoutReturn('not a url', secret)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('gives no links and no secret without SECRETS_KEY or PUBLIC_URL', () => {
    expect(checkoutLinks({ secretsKey: null, publicUrl: 'https://pay.example.com' }).url(ID)).toBeNull();
    expect(checkoutLinks({ secretsKey: Buffer.alloc(32, 7) }).url(ID)).toBeNull();
    expect(checkoutLinks({ secretsKey: null }).accountSecret('acc_one')).toBeNull();
    expect(checkoutLinks({ secretsKey: null }).matches(ID, 'A'.repeat(22))).toBe(false);
  });
});
