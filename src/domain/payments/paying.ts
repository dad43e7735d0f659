// Paying a payment request with a verified slip (POST /api/v1/verify with
// `paymentRequest`): after the bank confirmed it and the verification was
// charged, the slip pays the request iff it went to the request's receiver,
// for its amount to the satang, inside its window, and paid no other
// request. The last two are decided by the store in one atomic write.
import type { Store } from '../ports/store.js';
import { matchReceivers } from '../receiver-policy.js';
import type { VerifiedSlip } from '../types.js';
import { slipSatang } from './money.js';
import type { PayingSlip, PaymentRefusal, PaymentRequest, PaymentStatus } from './types.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';

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
  /** The charged verification's id. */
  verificationId: string;
  at: Date;
  /** The `payment_request.paid` deliveries, built for the request as paid. */
  deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[];
}

export async function payWithSlip(store: Store, attempt: PayAttempt): Promise<PaymentVerdict> {
  const { request, slip } = attempt;
  const refused = (reason: PaymentRefusal, status: PaymentStatus = request.status): PaymentVerdict => ({ id: request.id, status, reason });
  const paying: PayingSlip = {
    verificationId: attempt.verificationId,
    transactionId: slip.transactionId,
    sendingBank: slip.senderBankCode,
    amount: slipSatang(slip.amount),
    transferredAt: new Date(slip.timestamp * 1000),
  };
  const known = stateRefusal(request, paying);
  if (known) return refused(known);
  const receiver = await store.getReceiver(request.receiverId);
  // The request's own receiver, even if deactivated since: the QR named it.
  if (!receiver || !matchReceivers(slip, [{ ...receiver, active: true }], 'report').passed) return refused('wrong_receiver');
  if (paying.amount !== request.amount) return refused('amount_mismatch');
  if (paying.transferredAt.getTime() < request.createdAt.getTime() - CLOCK_TOLERANCE_MS) return refused('transferred_before_request');
  if (paying.transferredAt.getTime() > request.expiresAt.getTime()) return refused('expired');
  const result = await store.payPaymentRequest(request.id, paying, attempt.at, attempt.deliveries);
  if (result.status === 'paid') return { id: request.id, status: 'paid' };
  if (result.status === 'slip_used') return { ...refused('slip_already_used'), otherRequestId: result.otherRequestId };
  return refused(stateRefusal(result.request, paying) ?? 'already_paid', result.request.status);
}

/** A request that is no longer pending, as this slip finds it; null when pending or paid by this very slip. */
function stateRefusal(request: PaymentRequest, slip: PayingSlip): PaymentRefusal | null {
  switch (request.status) {
    case 'pending':
      return null;
    case 'paid':
      return request.paidBy?.transactionId === slip.transactionId && request.paidBy.sendingBank === slip.sendingBank ? null : 'already_paid';
    case 'expired':
      return 'expired';
    case 'cancelled':
      return 'cancelled';
  }
}

/** The account's request named on a verify body; null for an unknown id or another account's (both are "not found"). */
export async function payableRequest(store: Store, accountId: string, id: string): Promise<PaymentRequest | null> {
  const request = await store.getPaymentRequest(id);
  return request?.accountId === accountId ? request : null;
}
