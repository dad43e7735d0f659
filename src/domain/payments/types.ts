// Payment requests (docs/payments.md): "has order 123 been paid, to me,
// once?". A request is made for one registered PromptPay receiver and one
// amount; a verified slip sent with its id pays it at most once, and a slip
// pays at most one request.
import type { Receiver } from '../types.js';

export const PAYMENT_STATUSES = ['pending', 'paid', 'expired', 'cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Why a verified slip did not pay the request it was sent for. */
export const PAYMENT_REFUSALS = ['amount_mismatch', 'wrong_receiver', 'expired', 'transferred_before_request', 'already_paid', 'slip_already_used', 'cancelled'] as const;
export type PaymentRefusal = (typeof PAYMENT_REFUSALS)[number];

/**
 * What a verification sent for a payment request did to it, as its record
 * keeps it (audit, GraphQL, export): the request, its status after this
 * slip, and why the slip did not pay it (null when it did).
 */
export interface PaymentRecord {
  requestId: string;
  status: PaymentStatus;
  reason: PaymentRefusal | null;
}

/** The slip that paid a request: what the shop needs to reconcile it. */
export interface PayingSlip {
  /** The verification (its record's id) that paid it. */
  verificationId: string;
  transactionId: string;
  sendingBank: string;
  /** In satang. */
  amount: number;
  transferredAt: Date;
}

/**
 * Whom a request is paid to, copied from its receiver when it was made: its
 * QR names this target, and a slip pays the request only if it went there.
 * A receiver removed or edited later changes nothing about the request.
 */
export type PaymentTarget = Pick<Receiver, 'kind' | 'bankCode' | 'number' | 'proxyType' | 'nameTh' | 'nameEn'>;

export interface PaymentRequest {
  id: string;
  accountId: string;
  /** The receiver it was made for (it may be removed since: `target` keeps what it was). */
  receiverId: string;
  /** Null only for a request made before targets were kept whose receiver was removed before the upgrade. */
  target: PaymentTarget | null;
  /** The merchant's order id: unique per account. */
  reference: string;
  /** What the customer must pay, in satang (the QR's amount). */
  amount: number;
  /** What the merchant asked, in satang: differs from `amount` when unique amounts added satang. */
  requestedAmount: number;
  /** Made under the account's unique-amount setting: no other pending request of the receiver has this amount. */
  uniqueAmount: boolean;
  /** The EMVCo payload of the dynamic PromptPay QR. */
  promptpay: string;
  status: PaymentStatus;
  createdAt: Date;
  expiresAt: Date;
  paidAt: Date | null;
  paidBy: PayingSlip | null;
  /** When it was cancelled or marked expired. */
  closedAt: Date | null;
  /** Where the checkout page sends the customer once paid (docs/payments.md#checkout-page); null: it shows the paid state. */
  successUrl: string | null;
}

/** What a store's create did: a reference used before hands back the first request, never a second. */
export type CreatePaymentResult =
  | { status: 'created' }
  | { status: 'reference_taken'; existing: PaymentRequest }
  /** Unique amounts only: another pending request of the receiver has this amount. */
  | { status: 'amount_taken' };

/** The atomic part of paying: the request still pending and the slip unused, both or neither. */
export type PayResult =
  | { status: 'paid'; request: PaymentRequest }
  /** Not pending any more (paid, expired or cancelled) as the write found it. */
  | { status: 'not_pending'; request: PaymentRequest }
  | { status: 'slip_used'; otherRequestId: string };

export interface PaymentQuery {
  accountId?: string;
  status?: PaymentStatus;
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  limit: number;
  after?: string | null;
}
