// What an upload's outcome becomes on the checkout page: the verdict shown
// for a slip that did not pay, and the signed way back to the shop for one
// that did (the upload's 303, and …/checked once a re-checked slip paid).
import type { CheckoutLinks } from '../../domain/payments/checkout-link.js';
import { checkoutSignature } from '../../domain/payments/checkout-link.js';
import { PAYMENT_REFUSALS, type PaymentRefusal, type PaymentRequest } from '../../domain/payments/types.js';
import type { Recheck } from '../../domain/rechecks/types.js';
import type { VerifyOutcome } from '../../domain/verify/service.js';
import type { TextKey } from './texts.js';

/** The page's answer to a slip that did not pay the request (nor was kept for re-checks). */
export function verdictOf(outcome: VerifyOutcome): TextKey {
  switch (outcome.kind) {
    case 'verified':
      return `verdict_${outcome.paymentRequest?.reason ?? 'already_paid'}`;
    case 'failed':
      return outcome.reason === 'unreadable_image' || outcome.reason === 'invalid_qr' ? 'verdict_unreadable' : 'verdict_not_confirmed';
    case 'account_error':
      return outcome.error === 'receiver_not_registered' ? 'verdict_wrong_receiver' : 'verdict_shop';
    case 'bad_request':
      return outcome.problem === 'too_large' ? 'verdict_too_large' : 'verdict_unreadable';
    default:
      // Busy, or the account's bound on slips being re-checked (recheck_limit): a minute later may do.
      return 'verdict_busy';
  }
}

/**
 * Why a re-checked slip left its request open: the bank confirmed it but it
 * did not pay (its amount, its receiver, its time), or the bank never showed
 * it. Undefined while it is still being checked.
 */
export function endedVerdict(r: Recheck): TextKey | undefined {
  switch (r.outcome) {
    case null:
      return undefined;
    case 'verified': {
      const reason = (JSON.parse(r.result ?? '{}') as { paymentRequest?: { reason?: string } }).paymentRequest?.reason;
      return PAYMENT_REFUSALS.includes(reason as PaymentRefusal) ? `verdict_${reason as PaymentRefusal}` : 'verdict_already_paid';
    }
    case 'refused':
      return 'verdict_wrong_receiver';
    case 'no_credit':
      return 'verdict_shop';
    case 'superseded':
      return 'verdict_already_paid';
    default:
      return 'verdict_unconfirmed';
  }
}

/** successUrl with the shop's own query kept, plus paymentRequest, status and the signature; null without one. */
export function successRedirect(request: PaymentRequest, links: CheckoutLinks): string | null {
  const secret = links.accountSecret(request.accountId);
  if (!request.successUrl || !secret) return null;
  const url = new URL(request.successUrl);
  for (const name of ['paymentRequest', 'status', 'signature']) url.searchParams.delete(name);
  url.searchParams.append('paymentRequest', request.id);
  url.searchParams.append('status', 'paid');
  url.searchParams.append('signature', checkoutSignature(secret, request.id, 'paid'));
  return url.toString();
}
