// The same slip sent again for the request it was verified for is answered
// from the record, before any hold: no bank call, no credit held or
// charged, no second event. It is the shop's own record of its own slip.
// Recognised by the QR alone: its sending bank and transaction reference
// are what the slip was stored under.
//
// - The slip paid the request (a client retrying after a timeout): `paid`,
//   with the data of the verification that paid it.
// - The slip was verified and charged but did not pay it (another amount, a
//   receiver that is not the request's, transferred before it or after it
//   expired, used for another request): the same refusal again. A customer
//   who uploads a ฿349.00 slip twice for a ฿349.50 order is charged once;
//   what the slip says cannot change, and a request paid or cancelled since
//   is said so first, as a fresh verification would.
//
// The plain verify route (no paymentRequest) never comes here: the
// contract keeps it without idempotency.
import type { Store } from '../ports/store.js';
import type { PaymentVerdict } from '../payments/paying.js';
import type { PaymentRefusal, PaymentRequest } from '../payments/types.js';
import type { SlipRef } from './slip-qr.js';
import type { VerifyTransactionRecord } from '../types.js';

/** The account's verifications of one slip read to find those of this request (plain verifications of the slip may be newer). */
const SAME_SLIP_READ = 50;

export interface EarlierAnswer {
  record: VerifyTransactionRecord;
  verdict: PaymentVerdict;
}

/**
 * The record of an earlier verification of `slip` for `request`, and what it
 * says about the request now; null when there is none, or its record no
 * longer holds the answer (redacted by retention: the names it showed are
 * gone, so the slip goes to the bank again).
 */
export async function earlierAnswer(store: Store, request: PaymentRequest, slip: SlipRef): Promise<EarlierAnswer | null> {
  const page = await store.listVerifyTransactions({ accountId: request.accountId, transactionId: slip.transRef, sendingBank: slip.sendingBank, limit: SAME_SLIP_READ });
  const whole = page.items.filter((r) => !r.redactedAt);
  const by = request.paidBy;
  if (request.status === 'paid' && by && by.sendingBank === slip.sendingBank && by.transactionId === slip.transRef) {
    const record = whole.find((r) => r.id === by.verificationId);
    return record ? { record, verdict: { id: request.id, status: 'paid' } } : null;
  }
  const refused = whole.find((r) => r.payment?.requestId === request.id && r.payment.reason !== null);
  if (!refused) return null;
  const reason = stateReason(request) ?? refused.payment!.reason!;
  // The request this slip paid instead: the account's record of the slip that did.
  const other = reason === 'slip_already_used' ? page.items.find((r) => r.payment?.status === 'paid' && r.payment.reason === null && r.payment.requestId !== request.id) : undefined;
  return { record: refused, verdict: { id: request.id, status: request.status, reason, ...(other ? { otherRequestId: other.payment!.requestId } : {}) } };
}

/** A request paid (by another slip) or cancelled since is said so first, as preparePayment does. */
function stateReason(request: PaymentRequest): PaymentRefusal | null {
  if (request.status === 'paid') return 'already_paid';
  return request.status === 'cancelled' ? 'cancelled' : null;
}
