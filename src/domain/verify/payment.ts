// A verification that names a payment request pays it in the settle that
// charges its slip. A LINE chat names none: there the request is chosen from
// the bank's answer (domain/line/payment-match.ts), and then paid by the same
// rules.
import type { SettlePayment, Store } from '../ports/store.js';
import type { VerifiedSlip, VerifyTransactionRecord } from '../types.js';
import { paidByThisSettle, paymentVerdict, preparePayment, type PaymentRefused, type PaymentVerdict } from '../payments/paying.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import { lateTransferEvent, paymentEvent } from '../payments/events.js';
import type { PaymentRequest } from '../payments/types.js';
import { SettleFailedError } from './failures.js';

/** The request named on the body, or the chooser of a LINE channel that matches payment requests. */
export type PaymentToPay = PaymentRequest | ((slip: VerifiedSlip) => Promise<PaymentRequest | undefined>);

/** What the settle is to do about the payment: nothing, write it (`payment`), or answer a refusal the slip alone decided (with a late transfer's event). */
export type PaymentPlan = (PaymentRefused & { payment?: undefined }) | { payment: SettlePayment; refused?: undefined; late?: undefined } | undefined;

/** The endpoints listening to the events a payment can raise. */
export interface PaymentListeners {
  paid: readonly string[];
  late: readonly string[];
}

/**
 * After the bank confirmed the slip, before the settle. A store failure here
 * comes after the bank answered, with the hold still open: the outcome is
 * unknown to the caller (500, like a failed settle), and recovery refunds the
 * hold, since nothing was charged.
 */
export async function planPayment(
  store: Store,
  paid: { request: PaymentToPay; slip: VerifiedSlip; verificationId: string; listeners: PaymentListeners },
  at: Date,
): Promise<PaymentPlan> {
  try {
    const request = typeof paid.request === 'function' ? await paid.request(paid.slip) : paid.request;
    if (!request) return undefined;
    const deliveries = paymentEvent('payment_request.paid', paid.listeners.paid, () => at);
    const lateDeliveries = lateTransferEvent(paid.listeners.late, () => at);
    return await preparePayment(store, { request, slip: paid.slip, verificationId: paid.verificationId, at, deliveries, lateDeliveries });
  } catch (err) {
    throw new SettleFailedError(err);
  }
}

/**
 * The settle: charged, with the payment (when there is one to write) decided
 * in the same atomic write, or neither. `paidHere`: this settle paid the
 * request and stored its paid event (not one found paid by this slip under
 * another verification, which wrote none).
 */
export async function settleWithPayment(
  store: Store,
  record: VerifyTransactionRecord,
  deliveries: readonly NewWebhookDelivery[],
  plan: PaymentPlan,
): Promise<{ payment: PaymentVerdict | undefined; paidHere: boolean }> {
  try {
    if (plan?.payment) {
      const found = await store.settleHold(record, deliveries, plan.payment);
      if (!found) throw new Error('the store settled a payment without saying what it found');
      return { payment: paymentVerdict(plan.payment, found), paidHere: paidByThisSettle(plan.payment, found) };
    }
    await (deliveries.length > 0 ? store.settleHold(record, deliveries) : store.settleHold(record));
    return { payment: plan?.refused, paidHere: false };
  } catch (err) {
    throw new SettleFailedError(err);
  }
}
