// What the customer reads when a channel matches payment requests: the
// order the slip paid, or that the shop will check it (docs/line.md#payment-requests).
// Only the order this slip paid is ever named (by the shop's own reference,
// never slipgate's ids): an order it was offered to and did not pay may be
// another customer's, so its reference and amount go to the staff, not the chat.
import type { PaymentVerdict } from '../payments/paying.js';
import type { VerifiedSlip } from '../types.js';
import type { PaymentMatch } from './payment-match.js';
import type { LineReply } from './replies.js';

/** `reply` is the verification's own answer; `verdict` what the payment rules decided, when a request was offered. */
export function paymentReply(slip: VerifiedSlip, reply: LineReply, match: PaymentMatch | null, verdict: PaymentVerdict | undefined): LineReply {
  if (match?.kind !== 'one' || !verdict) {
    // A slip used before or paid elsewhere is said as such; a good slip says no order was found.
    if (reply.kind !== 'verified') return reply;
    return { kind: 'no_order', slip, several: match?.kind === 'several' };
  }
  // A slip used before (or paid elsewhere) that this order refused for its own reasons is told as used:
  // the order it was offered to is only the receiver's open one, not the one the customer meant.
  if (reply.kind !== 'verified' && verdict.reason !== undefined && verdict.reason !== 'slip_already_used') return reply;
  switch (verdict.reason) {
    case undefined:
      return { kind: 'verified', slip, order: match.request.reference };
    case 'amount_mismatch':
      return { kind: 'amount_differs', slip };
    case 'slip_already_used':
      return { kind: 'paid_other_order', slip };
    default:
      return { kind: 'order_not_paid', slip };
  }
}
