// A brake on refused authentications from one client address. Requests
// refused before an account is known (1020 no key, 1021 unknown key, 1024 a
// key used from outside its ranges) each cost a durable RequestError record;
// without a brake, anyone who can reach the port grows the database at the
// speed of its disk. So, per address and fixed window (per process):
//
//   - the first `perWindow` refusals are answered and recorded one by one,
//     as the contract asks;
//   - after that, every refused authentication from the address is answered
//     429 until the window ends, and counted in memory only. A key that
//     resolves is served all along (keys/gate.ts): one address may be a
//     carrier NAT with many merchants behind it, and a 192-bit key is not
//     guessed; what the brake bounds is the cost of the bad ones;
//   - when the window ends (or the process stops) the address's count is
//     written as ONE record of kind `auth_rate_limited`;
//   - an address that sent at least `perWindow` requests while braked starts
//     the next window braked: a flood that goes on costs one record a
//     window, not perWindow + 1. One that slowed down (a client honouring
//     Retry-After) starts afresh.
//
// So one address costs at most perWindow + 1 records per window, and a
// flood's cost to everyone else is a map lookup per request (with a key: its
// lookup too, mostly from the key cache; see keys/gate.ts).
export interface FailedAuthBrakeOptions {
  /** Refused authentications one address may have recorded one by one per window; 0 turns the brake off. */
  perWindow: number;
  windowMs: number;
  now?: () => number;
}

/** What one braked address did in one window: written as one record. */
export interface BrakeSummary {
  address: string;
  /** Requests answered 429 (or refused past the limit by requests already in flight), none recorded one by one. */
  unrecorded: number;
  /** The first of them, so the summary can be found by a request id in the access log. */
  requestId: string;
  from: Date;
  to: Date;
}

interface AddressCount {
  failures: number;
  unrecorded: number;
  firstUnrecorded: string | null;
}

export class FailedAuthBrake {
  readonly perWindow: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private windowIndex = -1;
  private counts = new Map<string, AddressCount>();
  private ended: BrakeSummary[] = [];

  constructor(opts: FailedAuthBrakeOptions) {
    this.perWindow = opts.perWindow;
    this.windowMs = opts.windowMs;
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.perWindow > 0;
  }

  /**
   * A refused authentication: null when the address is under its limit (the
   * refusal is then answered as the contract says, see `failed`), else how long
   * until its window ends. A braked refusal is counted, never recorded.
   */
  refuse(address: string, requestId: string): { retryAfterMs: number } | null {
    if (!this.enabled) return null;
    const count = this.current().get(address);
    if (!count || count.failures < this.perWindow) return null;
    this.countUnrecorded(count, requestId);
    return { retryAfterMs: this.msLeft() };
  }

  /**
   * A refused authentication about to be recorded: true to record it one by
   * one, false when the address is past its limit (a request that passed
   * `refuse` while others were in flight); it is then counted for the summary.
   */
  failed(address: string, requestId: string): boolean {
    if (!this.enabled) return true;
    const counts = this.current();
    const count = counts.get(address) ?? { failures: 0, unrecorded: 0, firstUnrecorded: null };
    counts.set(address, count);
    if (count.failures < this.perWindow) {
      count.failures++;
      return true;
    }
    this.countUnrecorded(count, requestId);
    return false;
  }

  /** Time until the current window ends: then its summaries can be taken. */
  msLeft(): number {
    this.current();
    return (this.windowIndex + 1) * this.windowMs - this.now();
  }

  /** Whether anything counted is not yet in a summary taken. */
  get pending(): boolean {
    return this.ended.length > 0 || [...this.counts.values()].some((c) => c.unrecorded > 0);
  }

  /**
   * Summaries of the windows that ended, forgotten once taken; with
   * `includeCurrent` (the process stops) the current window's too.
   */
  takeSummaries(includeCurrent = false): BrakeSummary[] {
    this.current();
    if (includeCurrent) this.sumUp(this.windowIndex);
    const taken = this.ended;
    this.ended = [];
    return taken;
  }

  private countUnrecorded(count: AddressCount, requestId: string): void {
    count.unrecorded++;
    count.firstUnrecorded ??= requestId;
  }

  /** The counts of the window `now` is in; a window that ended is summed up and forgotten first. */
  private current(): Map<string, AddressCount> {
    const index = Math.floor(this.now() / this.windowMs);
    if (index !== this.windowIndex) {
      const carried = new Map<string, AddressCount>();
      if (index === this.windowIndex + 1) {
        for (const [address, count] of this.counts) {
          if (count.unrecorded >= this.perWindow) carried.set(address, { failures: this.perWindow, unrecorded: 0, firstUnrecorded: null });
        }
      }
      this.sumUp(this.windowIndex);
      this.counts = carried;
      this.windowIndex = index;
    }
    return this.counts;
  }

  /** Moves the unrecorded counts of window `index` into summaries; the addresses stay braked. */
  private sumUp(index: number): void {
    const from = new Date(index * this.windowMs);
    const to = new Date(Math.min(this.now(), (index + 1) * this.windowMs));
    for (const [address, count] of this.counts) {
      if (count.unrecorded === 0) continue;
      this.ended.push({ address, unrecorded: count.unrecorded, requestId: count.firstUnrecorded!, from, to });
      count.unrecorded = 0;
      count.firstUnrecorded = null;
    }
  }
}
