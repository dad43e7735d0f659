// The server's re-checks of kept slips (domain/rechecks/worker.ts): a pass
// every RECHECK_POLL_MS, on one instance at a time, chosen by leased-pass.ts
// like payment expiry's: the live lease with the smallest id. Two passes at
// once (a paused process) are harmless: every write of a re-check is
// conditional on it being unfinished, and a slip is charged and pays once by
// the settle's own rules.
import type { Logger } from 'pino';
import type { Store } from '../domain/ports/store.js';
import { recheckDue, type RecheckPassDeps } from '../domain/rechecks/worker.js';
import type { InstanceLease } from './lease.js';
import { leasedPass, type LeasedPass } from './leased-pass.js';

/** How often due re-checks are looked for: a re-check is asked within this after its time. */
const RECHECK_POLL_MS = 5_000;

export interface RecheckScheduleOptions extends Omit<RecheckPassDeps, 'store' | 'now' | 'stopped'> {
  lease: InstanceLease;
  logger: Logger;
  /** Called after a pass finished re-checks (their events are written), so the webhook worker need not wait for its poll. */
  written?(): void;
  /** Called after each pass with the unfinished re-checks of every account (the pending gauge). */
  pending?(count: number): void;
  intervalMs?: number;
  now?: () => Date;
}

/** One pass now (`runOnce`, null when another instance runs it) and `stop`. */
export type RecheckSchedule = LeasedPass<number>;

export function scheduleRechecks(store: Store, opts: RecheckScheduleOptions): RecheckSchedule {
  const now = opts.now ?? (() => new Date());
  const failure = 're-check pass failed; it runs again at the next interval';
  return leasedPass(store, { lease: opts.lease, logger: opts.logger, intervalMs: opts.intervalMs ?? RECHECK_POLL_MS, failure, now }, async (_at, stopped) => {
    const finished = await recheckDue({ ...opts, store, now, stopped });
    if (finished > 0) {
      opts.logger.info({ finished }, 're-checks finished');
      opts.written?.();
    }
    if (opts.pending) opts.pending(await store.countOpenRechecks());
    return finished;
  });
}
