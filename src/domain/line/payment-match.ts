// Which pending payment request a slip sent in a LINE chat pays, when the
// channel matches payment requests (docs/line.md#payment-requests). The
// customer names no order in the chat, so the slip itself must point at one
// request and only one: a pending request of the channel's account, for the
// target the slip paid (the request's own, kept from when it was made), for
// the slip's amount to the satang. The request chosen is then paid through
// the verify path's own atomic rules (payments/paying.ts): paid once, a slip
// pays one request, the window.
import type { Store } from '../ports/store.js';
import type { Receiver, VerifiedSlip } from '../types.js';
import { slipSatang } from '../payments/money.js';
import type { PaymentRequest } from '../payments/types.js';
import { paidToTarget } from '../payments/target.js';

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

/** Pending requests read at most: a shop with more open orders than this matches among the newest. */
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

  /**
   * The account's pending requests whose own target (payments/target.ts, as
   * the receiver was when the QR was made) the slip paid. Read by the index
   * of pending requests alone: the account's closed history is never read.
   */
  private async pendingPaidTo(accountId: string, slip: VerifiedSlip): Promise<PaymentRequest[]> {
    const paidTo = new Map<string, Promise<boolean>>();
    let receivers: Promise<readonly Receiver[]> | undefined;
    const registered = () => (receivers ??= this.store.listReceivers(accountId));
    const pending = await this.store.pendingPaymentRequests(accountId, MAX_PENDING);
    const verdicts = pending.map((request) => {
      if (!request.target) return false;
      // Requests of one target share the verdict: each target is compared once.
      const key = JSON.stringify(request.target);
      let paid = paidTo.get(key);
      if (paid === undefined) {
        paid = paidToTarget(request, slip, registered);
        paidTo.set(key, paid);
      }
      return paid;
    });
    const paid = await Promise.all(verdicts);
    return pending.filter((_, i) => paid[i]);
  }
}
