// Storage port: re-checks of slips the bank did not know yet (domain/rechecks).
import type { Recheck, RecheckFinish } from '../rechecks/types.js';
import type { SlipRef } from '../verify/slip-qr.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';

/** Unfinished re-checks of an account, of one of its payment requests, or of one slip (its sending bank and transaction reference). */
export interface OpenRechecksQuery {
  accountId: string;
  paymentRequestId?: string;
  slip?: SlipRef;
  limit: number;
}

// Every write below is conditional on the re-check being unfinished, so a
// pass that raced a finish (another slip paid the request, a paused
// process) changes nothing.
export interface RecheckStore {
  /**
   * Stores a new re-check iff its account has fewer than `maxOpen`
   * unfinished ones. Under concurrent starts on PostgreSQL and MongoDB the
   * count is read before the insert, so a burst may pass the bound by a few.
   */
  createRecheck(recheck: Recheck, maxOpen: number): Promise<boolean>;
  getRecheck(id: string): Promise<Recheck | null>;
  /**
   * Unfinished re-checks of an account (or of one of its payment requests,
   * or of one slip: a chat's re-send is answered from it), newest first, at most `limit`.
   */
  openRechecks(q: OpenRechecksQuery): Promise<Recheck[]>;
  /** Unfinished re-checks of every account. */
  countOpenRechecks(): Promise<number>;
  /** Up to `limit` unfinished re-checks due at `now`, soonest due first (an index of unfinished ones alone). */
  dueRechecks(now: Date, limit: number): Promise<Recheck[]>;
  /** Records an attempt: its count, when the next is due and the id a confirmed attempt holds under. */
  postponeRecheck(id: string, next: Pick<Recheck, 'attempts' | 'nextAttemptAt' | 'attemptId'>): Promise<boolean>;
  /**
   * Finishes it, with `deliveries` (its event) in the same write; false when
   * it was finished already. The LINE user id goes with the finish (personal
   * data, needed only until the result is pushed from what the pass read).
   */
  finishRecheck(id: string, finish: RecheckFinish, deliveries?: readonly NewWebhookDelivery[]): Promise<boolean>;
  /** Whether a success record with this id exists (the settle of a confirmed attempt committed). */
  verificationRecorded(id: string): Promise<boolean>;
}
