// What the customer reads when a channel matches payment requests: the
// order the slip paid, or why it paid none (docs/line.md#payment-requests).
// The order is named by the shop's own reference, never slipgate's ids.
import type { PaymentVerdict } from '../payments/paying.js';
import type { PaymentRequest } from '../payments/types.js';
import type { Store } from '../ports/store.js';
import type { VerifiedSlip } from '../types.js';
import type { PaymentMatch } from './payment-match.js';
import type { LineReply } from './replies.js';

/** `reply` is the verification's own answer; `verdict` what the payment rules decided, when a request was offered. */
export async function paymentReply(store: Store, slip: VerifiedSlip, reply: LineReply, match: PaymentMatch | null, verdict: PaymentVerdict | undefined): Promise<LineReply> {
  if (match?.kind !== 'one' || !verdict) {
    // A slip used before or paid elsewhere is said as such; a good slip says no order was found.
    if (reply.kind !== 'verified') return reply;
    return { kind: 'no_order', slip, several: match?.kind === 'several' };
  }
  const order = match.request.reference;
  // A slip used before (or paid elsewhere) that this order refused for its own reasons is told as used:
  // the order it was offered to is only the receiver's open one, not the one the customer meant.
  if (reply.kind !== 'verified' && verdict.reason !== undefined && verdict.reason !== 'slip_already_used') return reply;
  switch (verdict.reason) {
    case undefined:
      return { kind: 'verified', slip, order };
    case 'amount_mismatch':
      return { kind: 'amount_differs', slip, expected: match.request.amount / 100, order };
    case 'slip_already_used':
      return { kind: 'paid_other_order', slip, order: await otherReference(store, verdict.otherRequestId) };
    default:
      return { kind: 'order_not_paid', slip, order, why: verdict.reason };
  }
}

/** The reference of the order the slip paid before; undefined if it cannot be read (the answer still says the slip was used). */
async function otherReference(store: Store, id: string | undefined): Promise<string | undefined> {
  if (!id) return undefined;
  const other: PaymentRequest | null = await store.getPaymentRequest(id).catch(() => null);
  return other?.reference;
}
