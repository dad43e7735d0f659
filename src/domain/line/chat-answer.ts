// What a chat reads, and the staff hear, once a slip's verification ended:
// the same for a slip verified as it was sent (bridge.ts) and for one a
// re-check confirmed later (recheck-chat.ts), so a late slip is answered
// and matched to its order by the very rules a direct one is.
import type { SlipRef } from '../verify/slip-qr.js';
import type { VerifiedSlip } from '../types.js';
import type { PaymentRequest } from '../payments/types.js';
import type { VerifyOutcome } from '../verify/types.js';
import { outcomeReply } from './outcome-reply.js';
import type { PaymentMatch, PaymentRequestMatcher } from './payment-match.js';
import { paymentReply } from './payment-reply.js';
import type { LineReply } from './replies.js';
import { staffCase, type StaffCase } from './staff-notes.js';
import type { LineChannel } from './types.js';

/** A channel's chooser of the request a confirmed slip pays, and what it chose (read after the verification). */
export interface PaymentChooser {
  choose(slip: VerifiedSlip): Promise<PaymentRequest | undefined>;
  readonly match: PaymentMatch | null;
}

/** Chosen from the bank's answer, inside the verification, so the normal paying rules apply to it; null when the channel matches none. */
export function paymentChooser(channel: LineChannel, matcher: PaymentRequestMatcher | undefined): PaymentChooser | null {
  if (!channel.matchPaymentRequests || !matcher) return null;
  const chooser = {
    match: null as PaymentMatch | null,
    async choose(slip: VerifiedSlip) {
      chooser.match = await matcher.match(channel.accountId, slip);
      return chooser.match.kind === 'one' ? chooser.match.request : undefined;
    },
  };
  return chooser;
}

export function chatAnswer(channel: LineChannel, outcome: VerifyOutcome, chooser: PaymentChooser | null, ref: SlipRef): { reply: LineReply; staff: StaffCase | null } {
  const reply = outcomeReply(outcome, channel.checks);
  const verdict = outcome.kind === 'verified' ? outcome.paymentRequest : undefined;
  const match = chooser?.match ?? null;
  const final = chooser && outcome.kind === 'verified' ? paymentReply(outcome.slip, reply, match, verdict) : reply;
  return { reply: final, staff: staffCase(final, ref, match, verdict) };
}
