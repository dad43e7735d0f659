// A verification that names a payment request pays it once its slip is charged.
import type { Store } from './ports/store.js';
import type { VerifiedSlip } from './types.js';
import { payWithSlip, type PaymentVerdict } from './payments/paying.js';
import { paymentEvent } from './payments/events.js';
import type { PaymentRequest } from './payments/types.js';
import { SettleFailedError } from './verify-failures.js';

/** After the charge: a store failure here leaves the payment undecided, so the outcome is unknown (500), like a failed settle. */
export async function payAfterSettle(
  store: Store,
  paid: { request: PaymentRequest; slip: VerifiedSlip; verificationId: string; listeners: readonly string[] },
  at: Date,
): Promise<PaymentVerdict> {
  try {
    return await payWithSlip(store, { request: paid.request, slip: paid.slip, verificationId: paid.verificationId, at, deliveries: paymentEvent('payment_request.paid', paid.listeners, () => at) });
  } catch (err) {
    throw new SettleFailedError(err);
  }
}
