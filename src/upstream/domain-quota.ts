// Whether one domain can serve at all, apart from its breaker: a slip API
// whose quota or package is used up, whose key was refused or whose IP is
// not allowed says so, and asking it again before that changes only wastes
// the caller's deadline. The state changes on three things: a refusal that
// says the domain cannot serve, a quota reading (at start, by poll, or
// carried by an answer), and the retry time passing with no reading.

/** What changed, for the log line the pool writes once per change. */
export type UsabilityChange = { to: 'unusable'; reason: string } | { to: 'usable'; reason: string } | null;

export class DomainQuota {
  /** The last reading: a count, null for a package without a limit, undefined before any. */
  remaining: number | null | undefined = undefined;
  private unusable: { reason: string; until: number } | null = null;

  constructor(
    private readonly now: () => number,
    /** How long an unusable domain is skipped when no reading says it is back. */
    private readonly retryMs: number,
  ) {}

  /** False while the domain is skipped; the retry time passing lets one request through to find out. */
  usable(): boolean {
    return this.unusable === null || this.now() >= this.unusable.until;
  }

  /** The reason it is skipped now, or null. */
  unusableReason(): string | null {
    return this.usable() ? null : this.unusable!.reason;
  }

  /** The domain refused to serve anyone (or a reading said 0). */
  markUnusable(reason: string): UsabilityChange {
    const wasUsable = this.usable();
    const sameReason = this.unusable?.reason === reason;
    this.unusable = { reason, until: this.now() + this.retryMs };
    return wasUsable || !sameReason ? { to: 'unusable', reason } : null;
  }

  /** A quota the provider reported: 0 means used up, anything else that the domain serves again. */
  reading(remaining: number | null): UsabilityChange {
    this.remaining = remaining;
    if (remaining === 0) return this.markUnusable('quota used up (reading 0)');
    return this.served(remaining === null ? 'quota reading: no limit' : `quota reading: ${remaining} left`);
  }

  /** The domain serves again: a reading above 0, or a verification answered after the retry time. */
  served(reason: string): UsabilityChange {
    if (this.unusable === null) return null;
    this.unusable = null;
    return { to: 'usable', reason };
  }
}
