// Expiry of payment requests: pending requests past their expiresAt become
// `expired`, each with its `payment_request.expired` event in the same
// write. A slip that arrives later still verifies (and is charged) and is
// told `expired`.
import type { Store } from '../ports/store.js';
import { paymentEvent } from './events.js';

/** Requests expired per store write: each batch is one short transaction. */
const BATCH = 100;

export interface ExpiryDeps {
  store: Store;
  /** The endpoints of an account listening to `payment_request.expired`. */
  endpointsFor(accountId: string): Promise<readonly string[]>;
  now: Date;
  stopped?: () => boolean;
}

/** Expires every request due at `now`, batch by batch; returns how many it marked. */
export async function expireDuePayments(deps: ExpiryDeps): Promise<number> {
  let marked = 0;
  while (!deps.stopped?.()) {
    const due = await deps.store.duePaymentRequests(deps.now, BATCH);
    if (due.length === 0) break;
    const listeners = new Map<string, readonly string[]>();
    for (const accountId of new Set(due.map((p) => p.accountId))) listeners.set(accountId, await deps.endpointsFor(accountId));
    const expired = await deps.store.expirePaymentRequests(
      due.map((p) => p.id),
      deps.now,
      (p) => paymentEvent('payment_request.expired', listeners.get(p.accountId) ?? [], () => deps.now)(p),
    );
    marked += expired.length;
    // Every due one was paid or cancelled meanwhile by others; the next read finds new ones, if any.
    if (due.length < BATCH) break;
  }
  return marked;
}
