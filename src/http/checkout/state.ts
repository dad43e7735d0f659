// What the checkout page shows of its request: the stored status, `expired`
// from the moment its time is up (the expiry sweep may not have run yet),
// and `verifying` while a slip sent for it is being re-checked, derived as
// the API's reads derive it (domain/rechecks/view.ts), never stored.
import type { PaymentRequest } from '../../domain/payments/types.js';
import type { Store } from '../../domain/ports/store.js';
import { shownPaymentRequest } from '../../domain/rechecks/view.js';

export type PageState = 'pending' | 'verifying' | 'paid' | 'expired' | 'cancelled';

/** The request's state without a store read: pending, past its expiry, is expired. */
export function storedState(request: PaymentRequest, now: Date): Exclude<PageState, 'verifying'> {
  return request.status === 'pending' && request.expiresAt.getTime() <= now.getTime() ? 'expired' : request.status;
}

/**
 * The page's state, and the id of the newest slip being checked while
 * verifying (…/checked reads how it ended). A request past its expiry whose slip is still being
 * checked shows verifying too: a transfer made in time and found later still
 * pays it, so telling the customer "expired" then would have them pay twice.
 */
export async function pageState(store: Store, request: PaymentRequest, now: Date): Promise<{ state: PageState; checking?: string }> {
  const stored = storedState(request, now);
  if (stored === 'paid' || stored === 'cancelled') return { state: stored };
  const { verifying } = await shownPaymentRequest(store, request);
  return verifying ? { state: 'verifying', checking: verifying.verificationId } : { state: stored };
}
