// A pass that runs every interval on one instance at a time, the one whose
// lease is the first live one (smallest id), as retention chooses
// (schedules/retention.ts): payment expiry, the LINE daily summary. One pass
// at a time in this process: a slow pass is not doubled by the next tick.
import type { Logger } from 'pino';
import type { Store } from '../domain/ports/store.js';
import type { InstanceLease } from './lease.js';

export interface LeasedPass<T> {
  /** One pass now, if this process's turn; null when another instance runs it (or the pass had nothing to do). */
  runOnce(): Promise<T | null>;
  stop(): Promise<void>;
}

export interface LeasedPassOptions {
  lease: InstanceLease;
  logger: Logger;
  intervalMs: number;
  /** The log line of a failed pass. */
  failure: string;
  now: () => Date;
}

export function leasedPass<T>(store: Store, opts: LeasedPassOptions, pass: (at: Date, stopped: () => boolean) => Promise<T | null>): LeasedPass<T> {
  let stopped = false;
  let running: Promise<T | null> | null = null;
  const turn = async (): Promise<T | null> => {
    const mine = opts.lease.instanceId();
    if (mine === null || stopped) return null;
    const at = opts.now();
    if ((await store.firstLiveLease(at)) !== mine) return null;
    return pass(at, () => stopped);
  };
  const runOnce = () => (running ??= turn().finally(() => (running = null)));
  const timer = setInterval(() => void runOnce().catch((err: unknown) => opts.logger.error({ err }, opts.failure)), opts.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
