// Health of one domain configuration: counters, recent latencies and a
// circuit breaker, so a dead domain stops taking requests for a while and is
// then probed with one request before it gets traffic again.
import type { UpstreamFailureKind } from '../domain/ports/upstream.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** How long an open breaker keeps the domain out before one probe. */
  cooldownMs: number;
}

export type FailureCounts = Record<UpstreamFailureKind, number>;

/**
 * slip_not_found is a healthy bank answering "no such slip": it never trips
 * the breaker. A domain that answers about the wrong slip is as unusable as
 * one that is down.
 */
const TRIPS_BREAKER: ReadonlySet<UpstreamFailureKind> = new Set(['upstream_error', 'upstream_unavailable', 'upstream_timeout', 'upstream_mismatch']);

export type BreakerChange = 'opened' | 'closed' | null;

export class DomainHealthTracker {
  requests = 0;
  consecutiveFailures = 0;
  readonly failuresByKind: FailureCounts = { slip_not_found: 0, upstream_timeout: 0, upstream_error: 0, upstream_unavailable: 0, upstream_mismatch: 0 };
  private readonly latencies: LatencyRing;
  private openedAt: number | null = null;
  private probeInFlight = false;

  constructor(
    private readonly breakerOptions: BreakerOptions,
    private readonly now: () => number,
    latencySamples: number,
  ) {
    this.latencies = new LatencyRing(latencySamples);
  }

  get failures(): number {
    return Object.values(this.failuresByKind).reduce((a, b) => a + b, 0);
  }

  breaker(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt < this.breakerOptions.cooldownMs ? 'open' : 'half_open';
  }

  /** Closed, or half-open with no probe under way. */
  canTakeRequest(): boolean {
    const state = this.breaker();
    return state === 'closed' || (state === 'half_open' && !this.probeInFlight);
  }

  /** Call when a request is sent; returns whether it is the half-open probe. */
  begin(): boolean {
    this.requests++;
    if (this.breaker() !== 'half_open') return false;
    this.probeInFlight = true;
    return true;
  }

  record(result: { ok: true } | { ok: false; kind: UpstreamFailureKind }, latencyMs: number, wasProbe: boolean): BreakerChange {
    this.latencies.add(latencyMs);
    if (wasProbe) this.probeInFlight = false;
    if (!result.ok) this.failuresByKind[result.kind]++;
    if (!result.ok && TRIPS_BREAKER.has(result.kind)) {
      this.consecutiveFailures++;
      // A failed probe starts a new cooldown; otherwise open on the Nth failure in a row.
      if (wasProbe || (this.openedAt === null && this.consecutiveFailures >= this.breakerOptions.threshold)) {
        const wasOpen = this.openedAt !== null;
        this.openedAt = this.now();
        return wasOpen ? null : 'opened';
      }
      return null;
    }
    this.consecutiveFailures = 0;
    if (this.openedAt === null) return null;
    this.openedAt = null;
    return 'closed';
  }

  /**
   * A domain that said it cannot serve anyone (quota used up, key refused):
   * counted as unavailable, but neither towards nor against the breaker.
   */
  recordRefusal(latencyMs: number, wasProbe: boolean): BreakerChange {
    this.latencies.add(latencyMs);
    if (wasProbe) this.probeInFlight = false;
    this.failuresByKind.upstream_unavailable++;
    return null;
  }

  percentile(p: number): number | null {
    return this.latencies.percentile(p);
  }
}

/** The last N latencies; old samples fall out so percentiles follow current behaviour. */
class LatencyRing {
  private readonly samples: Float64Array;
  private count = 0;
  private next = 0;

  constructor(size: number) {
    this.samples = new Float64Array(Math.max(1, size));
  }

  add(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    this.count = Math.min(this.count + 1, this.samples.length);
  }

  /** Nearest-rank percentile in whole milliseconds, null before any sample. */
  percentile(p: number): number | null {
    if (this.count === 0) return null;
    const sorted = this.samples.slice(0, this.count).sort();
    const rank = Math.min(this.count, Math.max(1, Math.ceil((p / 100) * this.count)));
    return Math.round(sorted[rank - 1]!);
  }
}
