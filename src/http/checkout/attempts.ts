// The bound on what a checkout page's visitors can spend of the shop's
// credits: at most CHECKOUT_MAX_CHECKS slip checks per payment request,
// counted in the store (one atomic write per check, so every instance on the
// database shares the count), and one at a time per request in a process.
// Each check costs at most one credit (only a slip the bank confirms is
// charged), so a request costs the shop at most that many.
import type { Store } from '../../domain/ports/store.js';

export class CheckoutAttempts {
  private readonly busy = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly max: number,
  ) {}

  /** A release to call when the check is done, or why not now. */
  async take(requestId: string): Promise<{ ok: true; release: () => void } | { ok: false; why: 'limit' | 'busy' }> {
    if (this.busy.has(requestId)) return { ok: false, why: 'busy' };
    this.busy.add(requestId);
    const release = () => void this.busy.delete(requestId);
    try {
      if (await this.store.takeCheckoutCheck(requestId, this.max)) return { ok: true, release };
    } catch (err) {
      release();
      throw err;
    }
    release();
    return { ok: false, why: 'limit' };
  }
}
