// The Prometheus metrics of one slipgate process, served on the admin
// listener's /metrics. Labels are bounded sets only (outcomes, configured
// domain names, store operations): never an account, key, QR or address.
// Each metric names its cluster aggregator: counters and histograms add up
// across workers; a figure every worker reads from the shared store (held
// credits) is the same in each, so the cluster shows the highest, not N times it.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { BreakerState } from '../upstream/domain-health.js';
import type { DomainHealth } from '../upstream/pool.js';
import type { StoreErrorCode } from '../domain/ports/store.js';
import type { CreditHold } from '../domain/types.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What a scrape reads at that moment. */
export interface MetricsSources {
  upstreamHealth(): DomainHealth[];
  listHolds(): Promise<CreditHold[]>;
  /** The slip-image worker pool's running counters. */
  imageStats?(): { decodes: number; busy: number; timeouts: number; running: number; queued: number; waiting?: number };
  onReadError?(err: unknown): void;
}

export type RefusalReason = 'ip_rate_limit' | 'key_rate_limit' | 'auth_failures' | 'inflight';

const BREAKER_STATES: BreakerState[] = ['closed', 'half_open', 'open'];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

let processRegistry: Registry | undefined;

/** Event-loop delay, heap, GC…: one set per process, however many apps it runs (tests). */
export function defaultMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class Metrics {
  readonly registry = new Registry();
  private sources: MetricsSources | undefined;
  private holdsRead: Promise<CreditHold[] | null> | null = null;

  private readonly verifications = new Counter({
    name: 'slipgate_verifications_total',
    help: 'Answers of POST /api/v1/verify by outcome; code is the account error code (1020-1023) when there is one',
    labelNames: ['outcome', 'code'] as const,
    registers: [this.registry],
  });
  private readonly verificationSeconds = new Histogram({
    name: 'slipgate_verification_duration_seconds',
    help: 'Time from receiving POST /api/v1/verify to answering it; result is success, failure (200 error), refused (4xx) or error (5xx)',
    labelNames: ['result'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly bankRequests = new Counter({
    name: 'slipgate_bank_requests_total',
    help: 'Requests to each bank network domain (failover attempts included) by outcome',
    labelNames: ['domain', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly bankSeconds = new Histogram({
    name: 'slipgate_bank_request_duration_seconds',
    help: 'Latency of one request to a bank network domain',
    labelNames: ['domain', 'result'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'slipgate_requests_refused_total',
    help: 'Public requests answered 429: per-IP or per-key rate limit, an address braked after refused authentications, or the per-account in-flight cap',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly recoveries = new Counter({
    name: 'slipgate_hold_recoveries_total',
    help: 'Stale credit holds (left by a dead process) recovered: settled (charged) or released (refunded)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'slipgate_webhook_attempts_total',
    help: 'Webhook delivery attempts by what followed: delivered (2xx), retry (scheduled again) or failed (given up)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly lineEvents = new Counter({
    name: 'slipgate_line_events_total',
    help: 'LINE webhook events by what the customer was answered (verified, duplicate, not_found, unreadable, …) or what became of them (redelivery, ignored, error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly recheckAttempts = new Counter({
    name: 'slipgate_recheck_attempts_total',
    help: 'Re-checks of kept slips asked again: confirmed, not_found, bank_failure (timeout, error, open breaker), no_credit or busy',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly rechecksFinished = new Counter({
    name: 'slipgate_rechecks_finished_total',
    help: 'Re-checks finished, by outcome: verified, refused, superseded, unconfirmed or no_credit',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly rechecksPending = new Gauge({
    name: 'slipgate_rechecks_pending',
    help: 'Slips being re-checked (unfinished re-checks of every account), as the last re-check pass counted them',
    registers: [this.registry],
    aggregator: 'max',
  });
  private readonly storeSeconds = new Histogram({
    name: 'slipgate_store_operation_duration_seconds',
    help: 'Latency of each store operation',
    labelNames: ['operation', 'result'] as const,
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    // Started now, so event-loop delay and GC are measured from startup, not from the first scrape.
    defaultMetricsRegistry();
    const metrics = this;
    new Gauge({
      name: 'slipgate_processes',
      help: 'slipgate processes reporting (1 per process; the worker count in cluster mode)',
      registers: [this.registry],
      aggregator: 'sum',
      collect() {
        this.set(1);
      },
    });
    new Gauge({
      name: 'slipgate_bank_breaker_state',
      help: 'Processes whose circuit breaker for the domain is in this state (1 or 0 with one process)',
      labelNames: ['domain', 'state'] as const,
      registers: [this.registry],
      aggregator: 'sum',
      collect() {
        this.reset();
        for (const domain of metrics.sources?.upstreamHealth() ?? []) {
          for (const state of BREAKER_STATES) this.set({ domain: domain.name, state }, domain.breaker === state ? 1 : 0);
        }
      },
    });
    // Lowest across processes: each reads the quota itself, and the operator needs the worst view.
    new Gauge({
      name: 'slipgate_upstream_quota_remaining',
      help: "A slip-API domain's remaining quota at its last reading (domains without a quota call or a limit are absent)",
      labelNames: ['domain'] as const,
      registers: [this.registry],
      aggregator: 'min',
      collect() {
        this.reset();
        for (const domain of metrics.sources?.upstreamHealth() ?? []) {
          if (domain.quotaRemaining !== null) this.set({ domain: domain.name }, domain.quotaRemaining);
        }
      },
    });
    new Gauge({
      name: 'slipgate_upstream_usable',
      help: 'Whether the domain may serve (1), or said it cannot (quota used up, key refused) and is skipped (0)',
      labelNames: ['domain'] as const,
      registers: [this.registry],
      aggregator: 'min',
      collect() {
        this.reset();
        for (const domain of metrics.sources?.upstreamHealth() ?? []) this.set({ domain: domain.name }, domain.usable ? 1 : 0);
      },
    });
    new Gauge({
      name: 'slipgate_image_pool',
      help: 'Slip pictures being read on a worker thread (running), waiting for one (queued), or waiting unread for IMAGE_BYTES_IN_FLIGHT room (waiting)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      aggregator: 'sum',
      collect() {
        const stats = metrics.sources?.imageStats?.();
        this.set({ state: 'running' }, stats?.running ?? 0);
        this.set({ state: 'queued' }, stats?.queued ?? 0);
        this.set({ state: 'waiting' }, stats?.waiting ?? 0);
      },
    });
    // The pool counts for itself; the counter follows it at each scrape.
    const seen = { decoded: 0, busy: 0, timeout: 0 };
    new Counter({
      name: 'slipgate_image_decodes_total',
      help: 'Slip pictures by what became of them: decoded (handed to a thread), busy (queue full, 429), timeout (over the time budget)',
      labelNames: ['result'] as const,
      registers: [this.registry],
      collect() {
        const stats = metrics.sources?.imageStats?.();
        if (!stats) return;
        const now = { decoded: stats.decodes, busy: stats.busy, timeout: stats.timeouts };
        for (const result of ['decoded', 'busy', 'timeout'] as const) {
          this.inc({ result }, now[result] - seen[result]);
          seen[result] = now[result];
        }
      },
    });
    new Gauge({
      name: 'slipgate_credits_held',
      help: 'Credits held right now by verifications in flight (read from the store at scrape time)',
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        this.reset();
        const holds = await metrics.readHolds();
        if (holds) this.set(holds.length);
      },
    });
    new Gauge({
      name: 'slipgate_oldest_hold_age_seconds',
      help: 'Age of the oldest open credit hold (0 when none); a hold older than HOLD_STALE_MS is recovered',
      registers: [this.registry],
      aggregator: 'max',
      async collect() {
        this.reset();
        const holds = await metrics.readHolds();
        if (!holds) return;
        const oldest = Math.min(Date.now(), ...holds.map((h) => h.createdAt.getTime()));
        this.set(Math.max(0, (Date.now() - oldest) / 1000));
      },
    });
  }

  watch(sources: MetricsSources): void {
    this.sources = sources;
  }

  verification(outcome: string, code: number | undefined, result: 'success' | 'failure' | 'refused' | 'error', seconds: number): void {
    this.verifications.inc({ outcome, code: code === undefined ? '' : String(code) });
    this.verificationSeconds.observe({ result }, seconds);
  }

  bankRequest(domain: string, outcome: string, seconds: number): void {
    this.bankRequests.inc({ domain, outcome });
    this.bankSeconds.observe({ domain, result: outcome === 'success' ? 'success' : 'failure' }, seconds);
  }

  lineEvent(outcome: string): void {
    this.lineEvents.inc({ outcome });
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  holdsRecovered(settled: number, released: number): void {
    if (settled > 0) this.recoveries.inc({ result: 'settled' }, settled);
    if (released > 0) this.recoveries.inc({ result: 'released' }, released);
  }

  webhookAttempt(result: 'delivered' | 'retry' | 'failed'): void {
    this.webhookAttempts.inc({ result });
  }

  recheckAttempt(result: string): void {
    this.recheckAttempts.inc({ result });
  }

  recheckFinished(outcome: string): void {
    this.rechecksFinished.inc({ outcome });
  }

  rechecksPendingNow(count: number): void {
    this.rechecksPending.set(count);
  }

  storeOperation(operation: string, result: StoreOperationResult, seconds: number): void {
    this.storeSeconds.observe({ operation, result }, seconds);
  }

  /** This process's figures, as the cluster primary aggregates them. */
  async json(): Promise<MetricsJson> {
    const [own, proc] = await Promise.all([this.registry.getMetricsAsJSON(), defaultMetricsRegistry().getMetricsAsJSON()]);
    return [...own, ...proc] as MetricsJson;
  }

  /** This process's figures in the Prometheus text format. */
  async text(): Promise<string> {
    return Registry.merge([this.registry, defaultMetricsRegistry()]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** One store read per scrape, shared by the gauges that need it. */
  private readHolds(): Promise<CreditHold[] | null> {
    if (!this.sources) return Promise.resolve(null);
    const sources = this.sources;
    return (this.holdsRead ??= sources
      .listHolds()
      .catch((err: unknown) => {
        sources.onReadError?.(err);
        return null;
      })
      .finally(() => {
        this.holdsRead = null;
      }));
  }
}

/**
 * `ok`; `error` when the store failed; or the caller's own mistake the store
 * refused (`conflict`: a reused idempotency key, `not_found`, `insufficient`,
 * `invalid_cursor`), which is no store failure and must not page anyone.
 */
export type StoreOperationResult = 'ok' | 'error' | Exclude<StoreErrorCode, 'unavailable'>;
