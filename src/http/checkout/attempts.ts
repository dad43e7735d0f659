// The bound on what a checkout page's visitors can spend of the shop's
// credits: at most CHECKOUT_MAX_CHECKS slip checks per payment request (per
// process), one at a time, so parallel uploads cannot pass the bound
// together. Each check costs at most one credit (only a slip the bank
// confirms is charged), so a request costs the shop at most that many.
export class CheckoutAttempts {
  private readonly used = new Map<string, number>();
  private readonly busy = new Set<string>();

  constructor(private readonly max: number) {}

  /** A release to call when the check is done, or why not now. */
  take(requestId: string): { ok: true; release: () => void } | { ok: false; why: 'limit' | 'busy' } {
    if ((this.used.get(requestId) ?? 0) >= this.max) return { ok: false, why: 'limit' };
    if (this.busy.has(requestId)) return { ok: false, why: 'busy' };
    this.used.set(requestId, (this.used.get(requestId) ?? 0) + 1);
    this.busy.add(requestId);
    // Kept small: a request past its life needs no count (its page takes no uploads).
    if (this.used.size > 100_000) this.used.delete(this.used.keys().next().value!);
    return { ok: true, release: () => this.busy.delete(requestId) };
  }
}
