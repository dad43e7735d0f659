// The domain configurations as one Upstream: each request goes to a domain
// chosen at random by weight among the usable domains of the best priority
// (enabled, not shut out by their circuit breaker, not out of quota); a
// lower priority serves only when every domain above it cannot. The caller's
// AbortSignal is the one deadline for all of it: when a domain cannot even be
// reached, one other domain is tried within it, and when a domain says it
// cannot serve anyone (quota used up, key refused), the same verification
// goes to the next usable domain, as many as there are.
// Every domain's answer passes acceptAnswer (accept-answer.ts), whatever its
// provider, and a refused answer counts against that domain like any other
// failure.
import { acceptAnswer } from './accept-answer.js';
import type { UpstreamConfig } from './config.js';
import { DomainHealthTracker } from './domain-health.js';
import type { DomainHealth, ReloadSummary, UpstreamPoolOptions } from './pool-types.js';
import { DomainQuota, type UsabilityChange } from './domain-quota.js';
import { failure, isConnectionFailure, MESSAGES, publicFailure, type AdapterFailure, type AdapterResult } from './shared/outcomes.js';
import type { BankAdapter, QuotaReading, SlipQuery, Upstream, UpstreamResult } from '../domain/ports/upstream.js';

/** UPSTREAM_EXHAUSTED_RETRY_MINUTES' default. */
const DEFAULT_EXHAUSTED_RETRY_MS = 30 * 60_000;

export type { DomainHealth, ReloadSummary, UpstreamPoolOptions } from './pool-types.js';

interface Member {
  readonly config: UpstreamConfig;
  readonly upstream: BankAdapter;
  readonly health: DomainHealthTracker;
  readonly quota: DomainQuota;
  /** Whether the last reading was below quotaLow, so a crossing is told once. */
  quotaLow: boolean;
  inFlight: number;
  /** Replaced by a reload; closed once its last request finishes. */
  retired: boolean;
}

const ALL_UNAVAILABLE: UpstreamResult = { ok: false, kind: 'upstream_unavailable', message: MESSAGES.unavailable, upstream: null };

export class UpstreamPool implements Upstream {
  readonly name = 'pool';
  private members: Member[] = [];
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly breaker: { threshold: number; cooldownMs: number };
  private readonly latencySamples: number;
  private readonly exhaustedRetryMs: number;
  private readonly quotaLowListeners: ((domain: string, remaining: number) => void)[] = [];

  constructor(
    configs: UpstreamConfig[],
    private readonly opts: UpstreamPoolOptions,
  ) {
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.breaker = { threshold: opts.breakerThreshold ?? 5, cooldownMs: opts.breakerCooldownMs ?? 30_000 };
    this.latencySamples = opts.latencySamples ?? 1000;
    this.exhaustedRetryMs = opts.exhaustedRetryMs ?? DEFAULT_EXHAUSTED_RETRY_MS;
    this.reload(configs);
  }

  /** Adds a listener told when a domain's quota falls below quotaLow (the LINE staff note, wired once LINE is). */
  whenQuotaLow(listener: (domain: string, remaining: number) => void): void {
    this.quotaLowListeners.push(listener);
  }

  /**
   * One adapter as a pool of one, so an injected network (tests, embedding)
   * gets the same answer checks. No breaker by default: with a single
   * domain there is nowhere else to send the traffic.
   */
  static of(adapter: BankAdapter, opts: Omit<UpstreamPoolOptions, 'createAdapter'> = {}): UpstreamPool {
    const config: UpstreamConfig = { name: adapter.name, provider: 'sandbox', weight: 1, enabled: true };
    return new UpstreamPool([config], { breakerThreshold: Number.POSITIVE_INFINITY, ...opts, createAdapter: () => adapter });
  }

  async verify(query: SlipQuery, signal: AbortSignal): Promise<UpstreamResult> {
    // Out of time before asking anyone: no domain is to blame.
    if (signal.aborted) return { ok: false, kind: 'upstream_timeout', message: MESSAGES.timeout, upstream: null };
    const tried = new Set<Member>();
    let connectionRetry = true;
    let last: AdapterFailure | null = null;
    for (;;) {
      const member = this.pick(tried);
      if (!member) return last ? publicFailure(last) : ALL_UNAVAILABLE;
      tried.add(member);
      const result = await this.attempt(member, query, signal);
      if (result.ok) return result;
      if (signal.aborted) return publicFailure(result);
      last = result;
      // A domain that cannot serve anyone did not look at the slip: asking
      // the next one is a read, safe to repeat, as often as there are domains.
      if ((result as AdapterFailure).unusable !== undefined) continue;
      // Only when the bank never got the request is a second domain safe and useful; once.
      if (connectionRetry && isConnectionFailure(result)) {
        connectionRetry = false;
        continue;
      }
      return publicFailure(result);
    }
  }

  /**
   * Swaps in a new set of domains (SIGHUP). A domain whose configuration is
   * unchanged keeps its adapter (and token) and its health; a changed one
   * starts afresh. Replaced adapters close after their in-flight requests.
   * Throws, leaving the current set in place, when an adapter cannot be built.
   */
  reload(configs: UpstreamConfig[]): ReloadSummary {
    if (configs.length === 0) throw new Error('the upstream pool needs at least one domain configuration');
    const summary: ReloadSummary = { added: [], changed: [], removed: [], unchanged: [] };
    const next: Member[] = [];
    const created: Member[] = [];
    try {
      for (const config of configs) {
        const current = this.members.find((m) => m.config.name === config.name);
        if (current && sameConfig(current.config, config)) {
          next.push(current);
          summary.unchanged.push(config.name);
          continue;
        }
        const member = this.newMember(config);
        created.push(member);
        next.push(member);
        (current ? summary.changed : summary.added).push(config.name);
      }
    } catch (err) {
      for (const member of created) void closeQuietly(member.upstream);
      throw err;
    }
    for (const old of this.members) {
      if (next.includes(old)) continue;
      if (!configs.some((c) => c.name === old.config.name)) summary.removed.push(old.config.name);
      old.retired = true;
      if (old.inFlight === 0) void closeQuietly(old.upstream);
    }
    this.members = next;
    return summary;
  }

  health(): DomainHealth[] {
    return this.members.map(({ config, health, quota, upstream }) => ({
      name: config.name,
      provider: config.provider,
      enabled: config.enabled,
      weight: config.weight,
      priority: priorityOf(config),
      usable: quota.usable(),
      unusableReason: quota.unusableReason(),
      readsQuota: typeof upstream.readQuota === 'function',
      quotaRemaining: quota.remaining ?? null,
      requests: health.requests,
      failures: health.failures,
      failuresByKind: { ...health.failuresByKind },
      consecutiveFailures: health.consecutiveFailures,
      p50Ms: health.percentile(50),
      p95Ms: health.percentile(95),
      breaker: health.breaker(),
    }));
  }

  /**
   * Every enabled domain with a quota call is read (never a verification);
   * resolves when all have answered or `signal` aborted, never rejects.
   */
  async readQuotas(signal: AbortSignal): Promise<void> {
    const readable = this.members.filter((m) => m.config.enabled && typeof m.upstream.readQuota === 'function');
    await Promise.all(
      readable.map(async (member) => {
        const upstream = member.config.name;
        let reading: QuotaReading;
        try {
          reading = await member.upstream.readQuota!(signal);
        } catch (err) {
          this.opts.logger?.warn({ err, upstream }, 'upstream quota call threw');
          return;
        }
        if (member.retired) return;
        if (reading.ok) this.noteQuota(member, reading.remaining);
        else if (reading.unusable !== undefined) this.logUsability(member, member.quota.markUnusable(reading.unusable));
        else this.opts.logger?.warn({ upstream, reason: reading.message }, 'upstream quota reading failed; the domain stays as it was');
      }),
    );
  }

  async close(): Promise<void> {
    const members = this.members;
    this.members = [];
    await Promise.all(members.map((m) => closeQuietly(m.upstream)));
  }

  /**
   * Weighted random choice among the domains of the best priority that may
   * take a request now; a lower priority only when none above it can.
   */
  private pick(exclude: ReadonlySet<Member>): Member | undefined {
    const able = this.members.filter((m) => !exclude.has(m) && m.config.enabled && m.quota.usable() && m.health.canTakeRequest());
    if (able.length === 0) return undefined;
    const best = Math.min(...able.map((m) => priorityOf(m.config)));
    const eligible = able.filter((m) => priorityOf(m.config) === best);
    const total = eligible.reduce((sum, m) => sum + m.config.weight, 0);
    let point = this.random() * total;
    for (const member of eligible) {
      point -= member.config.weight;
      if (point < 0) return member;
    }
    return eligible.at(-1);
  }

  private async attempt(member: Member, query: SlipQuery, signal: AbortSignal): Promise<UpstreamResult | AdapterFailure> {
    const { name } = member.config;
    const wasProbe = member.health.begin();
    member.inFlight++;
    const clock = this.opts.monotonic ?? (() => performance.now());
    const started = clock();
    let result: UpstreamResult | AdapterFailure;
    let reportedQuota = false;
    try {
      const answer: AdapterResult = await member.upstream.verify(query, signal);
      if (answer.quotaRemaining !== undefined) {
        reportedQuota = true;
        this.noteQuota(member, answer.quotaRemaining);
      }
      result = answer.ok ? acceptAnswer(query, answer, name, this.opts.logger) : answer;
    } catch (err) {
      // The port says adapters never reject; one that does is a bug, not an outage.
      this.opts.logger?.warn({ err, upstream: name, requestId: query.requestId }, 'upstream adapter threw');
      result = failure('upstream_error', MESSAGES.error, name);
    } finally {
      member.inFlight--;
      if (member.retired && member.inFlight === 0) void closeQuietly(member.upstream);
    }
    const elapsed = clock() - started;
    const latencyMs = Math.round(elapsed);
    const unusable = result.ok ? undefined : (result as AdapterFailure).unusable;
    // A domain that cannot serve is not down: it is skipped by its quota
    // state, not its breaker, so its refusals do not count towards opening it.
    const change = unusable === undefined ? member.health.record(result, latencyMs, wasProbe) : member.health.recordRefusal(latencyMs, wasProbe);
    this.opts.onAttempt?.(name, result.ok ? 'success' : result.kind, elapsed);
    if (unusable !== undefined) this.logUsability(member, member.quota.markUnusable(unusable));
    // A success is news only when no reading came with it (a last answer reports 0 left).
    else if (result.ok && !reportedQuota) this.logUsability(member, member.quota.served('answered a verification'));
    if (!result.ok && unusable === undefined) {
      const facts = { upstream: name, requestId: query.requestId, kind: result.kind, reason: result.message, latencyMs };
      // A slip the bank does not know is the customer's business, not the
      // operator's: the verification's own line says it at INFO.
      if (result.kind === 'slip_not_found') this.opts.logger?.debug?.(facts, 'upstream verification failed');
      else this.opts.logger?.warn(facts, 'upstream verification failed');
    }
    if (change === 'opened') {
      this.opts.logger?.warn(
        { upstream: name, consecutiveFailures: member.health.consecutiveFailures, cooldownMs: this.breaker.cooldownMs },
        'upstream circuit breaker opened',
      );
    } else if (change === 'closed') {
      this.opts.logger?.info?.({ upstream: name }, 'upstream circuit breaker closed');
    }
    return result;
  }

  /** A quota the provider reported, with an answer or from its quota call. */
  private noteQuota(member: Member, remaining: unknown): void {
    // From outside: an adapter that let a wrong shape through changes nothing.
    if (remaining !== null && !(typeof remaining === 'number' && Number.isSafeInteger(remaining) && remaining >= 0)) {
      this.opts.logger?.warn({ upstream: member.config.name }, 'upstream quota reading is not a whole number; ignored');
      return;
    }
    this.logUsability(member, member.quota.reading(remaining));
    const threshold = this.opts.quotaLow ?? 0;
    const low = remaining !== null && remaining < threshold;
    if (low && !member.quotaLow) {
      this.opts.logger?.warn({ upstream: member.config.name, quotaRemaining: remaining, quotaLow: threshold }, 'upstream domain quota is low');
      for (const listener of this.quotaLowListeners) listener(member.config.name, remaining);
    }
    member.quotaLow = low;
  }

  /** One line per change, never per request: the operator needs to know when a domain drops out and when it is back. */
  private logUsability(member: Member, change: UsabilityChange): void {
    if (!change) return;
    const facts = { upstream: member.config.name, provider: member.config.provider, reason: change.reason };
    if (change.to === 'unusable') this.opts.logger?.warn({ ...facts, retryMinutes: Math.round(this.exhaustedRetryMs / 60_000) }, 'upstream domain cannot serve; skipped until its quota is back');
    else this.opts.logger?.info?.(facts, 'upstream domain serves again');
  }

  private newMember(config: UpstreamConfig): Member {
    return {
      config,
      upstream: this.opts.createAdapter(config),
      health: new DomainHealthTracker(this.breaker, this.now, this.latencySamples),
      quota: new DomainQuota(this.now, this.exhaustedRetryMs),
      quotaLow: false,
      inFlight: 0,
      retired: false,
    };
  }
}

function priorityOf(config: UpstreamConfig): number {
  return config.priority ?? 1;
}

/** Configurations are plain data built in a fixed key order by the loader. */
function sameConfig(a: UpstreamConfig, b: UpstreamConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function closeQuietly(upstream: BankAdapter): Promise<void> {
  try {
    await upstream.close?.();
  } catch {
    // Closing is best effort: sockets die with the process anyway.
  }
}
