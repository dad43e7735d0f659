// What the pool (pool.ts) is given and what it reports: its options, each
// domain's health as GraphQL, metrics and the dashboard read it, and what a
// reload changed.
import type { BankAdapter, UpstreamFailureKind } from '../domain/ports/upstream.js';
import type { UpstreamConfig } from './config.js';
import type { BreakerState, FailureCounts } from './domain-health.js';

/** The part of a pino logger the pool uses. */
export interface UpstreamLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
}

export interface UpstreamPoolOptions {
  /** Builds the adapter of one domain; see build.ts. */
  createAdapter: (config: UpstreamConfig) => BankAdapter;
  logger?: UpstreamLogger;
  /** Uniform in [0, 1); injectable so tests are deterministic. */
  random?: () => number;
  /** Clock for breaker cooldowns (tests). */
  now?: () => number;
  /** Monotonic clock for latencies, in ms (tests); default performance.now. */
  monotonic?: () => number;
  /** Consecutive failures that open a domain's breaker (default 5). */
  breakerThreshold?: number;
  /** How long an open breaker keeps a domain out (default 30 s). */
  breakerCooldownMs?: number;
  /** Told of every request to a domain, after its answer was checked (metrics). */
  onAttempt?: (domain: string, outcome: 'success' | UpstreamFailureKind, latencyMs: number) => void;
  /** Latencies kept per domain for p50/p95 (default 1000). */
  latencySamples?: number;
  /** How long a domain that cannot serve is skipped when no quota reading says it is back (default 30 min). */
  exhaustedRetryMs?: number;
  /** A quota reading below this is a WARN line and tells the whenQuotaLow listeners, once per crossing (default 0: off). */
  quotaLow?: number;
}

export interface DomainHealth {
  name: string;
  provider: string;
  enabled: boolean;
  weight: number;
  /** 1 is tried first. */
  priority: number;
  /** False while the domain said it cannot serve (quota used up, key refused…) and no reading says it is back. */
  usable: boolean;
  /** Why it is not usable, in the provider adapter's words; null when usable. */
  unusableReason: string | null;
  /** Whether its adapter has a quota call (slip APIs). */
  readsQuota: boolean;
  /** The last quota reading: a count; null for no limit or before any reading. */
  quotaRemaining: number | null;
  /** Requests sent to this domain, failover attempts included. */
  requests: number;
  /** Every non-success answer, slip_not_found included (see failuresByKind). */
  failures: number;
  failuresByKind: FailureCounts;
  /** Failures in a row that count towards the breaker. */
  consecutiveFailures: number;
  /** Over the last `latencySamples` requests; null before the first. */
  p50Ms: number | null;
  p95Ms: number | null;
  breaker: BreakerState;
}

export interface ReloadSummary {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
}
