// Which pending payment request a slip sent in a LINE chat pays, when the
// channel matches payment requests (docs/line.md#payment-requests). The
// customer names no order in the chat, so the slip itself must point at one
// request and only one: a pending request of the channel's account, for the
// receiver the slip paid, for the slip's amount to the satang. The request
// chosen is then paid through the verify path's own atomic rules
// (payments/paying.ts): paid once, a slip pays one request, the window.
import type { Store } from '../ports/store.js';
import { matchReceivers } from '../receiver-policy.js';
import type { VerifiedSlip } from '../types.js';
import { slipSatang } from '../payments/money.js';
import type { PaymentRequest } from '../payments/types.js';

export type PaymentMatch =
  /** The request the slip is offered to (its amount may still differ: then it is the receiver's only pending one). */
  | { kind: 'one'; request: PaymentRequest }
  /** No pending request of the slip's receiver: verified, no order paid. */
  | { kind: 'none' }
  /** More than one pending request of the receiver has the slip's amount: verified, left to the shop. */
  | { kind: 'several' };

/** The seam the bridge uses (tests may give their own). */
export interface PaymentRequestMatcher {
  match(accountId: string, slip: VerifiedSlip): Promise<PaymentMatch>;
}

/** Pending requests read per page, and at most in all: a shop with more open orders than this matches among the newest. */
const PAGE = 200;
const MAX_PENDING = 2_000;

export class PendingRequestMatcher implements PaymentRequestMatcher {
  constructor(private readonly store: Store) {}

  async match(accountId: string, slip: VerifiedSlip): Promise<PaymentMatch> {
    const ofReceiver = await this.pendingPaidTo(accountId, slip);
    const amount = slipSatang(slip.amount);
    const same = ofReceiver.filter((r) => r.amount === amount);
    if (same.length === 1) return { kind: 'one', request: same[0]! };
    if (same.length > 1) return { kind: 'several' };
    // The receiver's only open order and a different amount: offered anyway, so the
    // customer is told the amount due (the payment rules refuse it: amount_mismatch).
    if (ofReceiver.length === 1) return { kind: 'one', request: ofReceiver[0]! };
    return { kind: 'none' };
  }

  /** The account's pending requests whose receiver (even if deactivated since: the QR named it) the slip paid. */
  private async pendingPaidTo(accountId: string, slip: VerifiedSlip): Promise<PaymentRequest[]> {
    const paidTo = new Map<string, boolean>();
    const found: PaymentRequest[] = [];
    let after: string | null = null;
    for (let read = 0; read < MAX_PENDING; read += PAGE) {
      const page = await this.store.listPaymentRequests({ accountId, status: 'pending', limit: PAGE, after });
      for (const request of page.items) {
        let paid = paidTo.get(request.receiverId);
        if (paid === undefined) {
          const receiver = await this.store.getReceiver(request.receiverId);
          paid = receiver !== null && matchReceivers(slip, [{ ...receiver, active: true }], 'report').passed;
          paidTo.set(request.receiverId, paid);
        }
        if (paid) found.push(request);
      }
      if (page.next === null) break;
      after = page.next;
    }
    return found;
  }
}
