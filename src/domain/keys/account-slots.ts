// A per-account count of things in flight with a ceiling: one merchant's
// burst takes at most `max` places, whatever is left stays for the others.

export class AccountSlots {
  private readonly taken = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** A release function, or null when the account already has `max` in flight. */
  take(accountId: string): (() => void) | null {
    const now = this.taken.get(accountId) ?? 0;
    if (now >= this.max) return null;
    this.taken.set(accountId, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.taken.get(accountId) ?? 1) - 1;
      if (left > 0) this.taken.set(accountId, left);
      else this.taken.delete(accountId);
    };
  }
}
