// Which answer a verification outcome gets in the chat. The duplicate check
// and a reported receiver verdict count only when the channel's checks are
// on; an account whose receiver policy is `require` refuses such slips
// whatever the channel says (the verification itself does).
import type { VerifyOutcome } from '../verify/types.js';
import type { LineReply } from './replies.js';

export function outcomeReply(outcome: VerifyOutcome, checksOn: boolean): LineReply {
  switch (outcome.kind) {
    case 'verified': {
      const dup = outcome.checks?.duplicate;
      // Said without the slip's details: the customer who sent it first may not be this one.
      if (checksOn && dup && !dup.passed && !('error' in dup)) return { kind: 'sent_before' };
      if (checksOn && outcome.checks?.receiver?.passed === false) return { kind: 'other_receiver', slip: outcome.slip };
      return { kind: 'verified', slip: outcome.slip };
    }
    case 'failed':
      switch (outcome.reason) {
        case 'slip_not_found':
        case 'upstream_mismatch':
          return { kind: 'not_found' };
        // A picture whose QR is not a slip's is, to the customer, a picture we could not read.
        case 'invalid_qr':
        case 'unreadable_image':
          return { kind: 'unreadable' };
        default:
          return { kind: 'try_later' };
      }
    case 'account_error':
      // The bank's slip rides along: the staff's note gives its amount and time, as every note does.
      if (outcome.error !== 'receiver_not_registered') return { kind: 'try_later' };
      return outcome.slip ? { kind: 'other_receiver', slip: outcome.slip } : { kind: 'other_receiver' };
    case 'bad_request':
      return { kind: 'unreadable' };
    // Kept for re-checks (domain/rechecks): the result is pushed once known (recheck-chat.ts).
    case 'pending':
      return { kind: 'bank_pending' };
    default:
      return { kind: 'try_later' };
  }
}
