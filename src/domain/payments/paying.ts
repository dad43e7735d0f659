// Paying a payment request with a verified slip (POST /api/v1/verify with
// `paymentRequest`): after the bank confirmed it and the verification was
// charged, the slip pays the request iff it went to the request's receiver,
// for its amount to the satang, transferred inside its window, and paid no
// other request. The last two are decided by the store in the settle's own
// atomic write: the charge and the payment are on disk together or not at
// all. Time decides by the transfer (payable.ts): an in-time transfer pays
// a request expiry already marked `expired`; a late one is refused and
// announced (`payment_request.late_transfer`).
import type { SettlePayment, Store } from '../ports/store.js';
import type { VerifiedSlip } from '../types.js';
import { slipSatang } from './money.js';
import { paidToTarget } from './target.js';
import type { PayResult, PayingSlip, PaymentRecord, PaymentRefusal, PaymentRequest, PaymentStatus } from './types.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import { transferredInTime } from './payable.js';

/**
 * How far a slip's time may be before the request was made: banks print
 * the transfer time to the minute (some to the second) by their own clock,
 * so a slip paid right after the QR was shown can read a minute earlier.
 */
const CLOCK_TOLERANCE_MS = 2 * 60_000;

/** What the verify answer says about the request it was asked to pay. */
export interface PaymentVerdict {
  id: string;
  /** The request's status after this slip: `paid` when this slip paid it (now or before). */
  status: PaymentStatus;
  /** Why this slip did not pay it; absent when it did. */
  reason?: PaymentRefusal;
  /** `slip_already_used`: the request this slip paid. */
  otherRequestId?: string;
}

export interface PayAttempt {
  request: PaymentRequest;
  slip: VerifiedSlip;
  /** The verification's id (its hold's, and its record's once charged). */
  verificationId: string;
  at: Date;
  /** The `payment_request.paid` deliveries, built for the request as paid. */
  deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[];
  /** The `payment_request.late_transfer` deliveries of a slip transferred after the request expired. */
  lateDeliveries: (request: PaymentRequest, slip: PayingSlip) => readonly NewWebhookDelivery[];
}

/** A refusal the slip alone decided; a late transfer carries its event, written by the settle that charges the slip. */
export interface PaymentRefused {
  refused: PaymentVerdict;
  late?: readonly NewWebhookDelivery[];
}

/**
 * Before the settle: the rules the slip alone decides (the request's
 * receiver, its amount, its window, its state as last read). A slip that
 * passes goes into the settle's write (`payment`), which decides the rest
 * atomically with the charge: still pending, and the slip unused.
 */
export async function preparePayment(store: Store, attempt: PayAttempt): Promise<PaymentRefused | { payment: SettlePayment }> {
  const { request, slip } = attempt;
  const refused = (reason: PaymentRefusal) => ({ refused: { id: request.id, status: request.status, reason } });
  const paying: PayingSlip = {
    verificationId: attempt.verificationId,
    transactionId: slip.transactionId,
    sendingBank: slip.senderBankCode,
    amount: slipSatang(slip.amount),
    transferredAt: new Date(slip.timestamp * 1000),
  };
  const known = stateRefusal(request, paying);
  // A late transfer is judged with the rules below: announced only when it was for this order (receiver, amount).
  if (known && known !== 'expired') return refused(known);
  // The request's own target, as its receiver was when it was made: the QR named it.
  if (!(await paidToTarget(request, slip, () => store.listReceivers(request.accountId)))) return refused('wrong_receiver');
  if (paying.amount !== request.amount) return refused('amount_mismatch');
  if (paying.transferredAt.getTime() < request.createdAt.getTime() - CLOCK_TOLERANCE_MS) return refused('transferred_before_request');
  if (!transferredInTime(request, paying)) return { ...refused('expired'), late: attempt.lateDeliveries(request, paying) };
  // Built for the request as this slip pays it: every field but the payment's is fixed while it is pending.
  const asPaid: PaymentRequest = { ...request, status: 'paid', paidAt: attempt.at, paidBy: paying };
  return { payment: { request, slip: paying, at: attempt.at, deliveries: attempt.deliveries(asPaid) } };
}

/** What the settle's payment write found, as the verify answer says it (the stores keep it too: recordedVerdict). */
export function paymentVerdict(payment: { request: Pick<PaymentRequest, 'id' | 'status'>; slip: PayingSlip }, result: PayResult): PaymentVerdict {
  const { request } = payment;
  if (result.status === 'paid') return { id: request.id, status: 'paid' };
  if (result.status === 'slip_used') return { id: request.id, status: request.status, reason: 'slip_already_used', otherRequestId: result.otherRequestId };
  return { id: request.id, status: result.request.status, reason: stateRefusal(result.request, payment.slip) ?? 'already_paid' };
}

/** The verdict as the verification's record keeps it. */
export const recordedVerdict = (v: PaymentVerdict): PaymentRecord => ({ requestId: v.id, status: v.status, reason: v.reason ?? null });

/**
 * Whether this verification's own settle paid the request (and so wrote its
 * `payment_request.paid` deliveries): a request found paid by the same slip
 * under another verification (a retry, or two sends racing) was announced
 * by that one, and nothing of this one's is stored to hand to the worker.
 */
export const paidByThisSettle = (payment: SettlePayment, result: PayResult): boolean =>
  result.status === 'paid' && result.request.paidBy?.verificationId === payment.slip.verificationId;

/** A request that is no longer payable, as this slip finds it; null when pending, expired after this slip's in-time transfer, or paid by this very slip. */
function stateRefusal(request: PaymentRequest, slip: PayingSlip): PaymentRefusal | null {
  switch (request.status) {
    case 'pending':
      return null;
    case 'paid':
      return request.paidBy?.transactionId === slip.transactionId && request.paidBy.sendingBank === slip.sendingBank ? null : 'already_paid';
    case 'expired':
      return transferredInTime(request, slip) ? null : 'expired';
    case 'cancelled':
      return 'cancelled';
  }
}

/** The account's request named on a verify body; null for an unknown id or another account's (both are "not found"). */
export async function payableRequest(store: Store, accountId: string, id: string): Promise<PaymentRequest | null> {
  const request = await store.getPaymentRequest(id);
  return request?.accountId === accountId ? request : null;
}
