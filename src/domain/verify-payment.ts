// A verification that names a payment request pays it once its slip is charged.
// A LINE chat names none: there the request is chosen from the bank's answer
// (domain/line/payment-match.ts), and then paid by the same rules.
import type { Store } from './ports/store.js';
import type { VerifiedSlip } from './types.js';
import { payWithSlip, type PaymentVerdict } from './payments/paying.js';
import { paymentEvent } from './payments/events.js';
import type { PaymentRequest } from './payments/types.js';
import { SettleFailedError } from './verify-failures.js';

/** The request named on the body, or the chooser of a LINE channel that matches payment requests. */
export type PaymentToPay = PaymentRequest | ((slip: VerifiedSlip) => Promise<PaymentRequest | undefined>);

/** After the charge: a store failure here leaves the payment undecided, so the outcome is unknown (500), like a failed settle. */
export async function payAfterSettle(
  store: Store,
  paid: { request: PaymentToPay; slip: VerifiedSlip; verificationId: string; listeners: readonly string[] },
  at: Date,
): Promise<PaymentVerdict | undefined> {
  try {
    const request = typeof paid.request === 'function' ? await paid.request(paid.slip) : paid.request;
    if (!request) return undefined;
    return await payWithSlip(store, { request, slip: paid.slip, verificationId: paid.verificationId, at, deliveries: paymentEvent('payment_request.paid', paid.listeners, () => at) });
  } catch (err) {
    throw new SettleFailedError(err);
  }
}
