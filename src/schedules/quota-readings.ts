// Each slip-API domain's quota, read with its quota call (never a
// verification) at start and every UPSTREAM_QUOTA_POLL_MINUTES, in every
// serving process: each process skips or uses a domain by its own readings.
import type { UpstreamPool } from '../upstream/pool.js';

export interface QuotaReadingsOptions {
  intervalMs: number;
  /** One round's budget (UPSTREAM_TIMEOUT_MS): a quota call that hangs is given up. */
  timeoutMs: number;
}

export interface QuotaReadingsSchedule {
  /** Resolves once the round under way, if any, has finished. */
  stop(): Promise<void>;
}

export function scheduleQuotaReadings(pool: UpstreamPool, opts: QuotaReadingsOptions): QuotaReadingsSchedule {
  let running: Promise<void> | null = null;
  const stopping = new AbortController();
  const round = () => {
    if (running) return;
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(opts.timeoutMs)]);
    // readQuotas never rejects: a failed reading is logged by the pool and changes nothing.
    running = pool.readQuotas(signal).finally(() => {
      running = null;
    });
  };
  round();
  const timer = setInterval(round, opts.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
