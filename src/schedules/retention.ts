// The server's own retention pass (domain/retention.ts): once per
// RETENTION_INTERVAL_MINUTES, and once at startup, on one instance at a time.
// It removes personal data past RETENTION_DAYS and deletes finished webhook
// deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS; either can be off (0).
// Which one is decided by the leases every serving process already keeps
// (lease.ts): the live lease with the smallest id, i.e. the longest-running
// process. When it dies its lease expires and the next one takes over at its
// next interval. Two passes at once (a paused process whose lease has
// already passed on) only do the same idempotent work twice.
import type { Logger } from 'pino';
import type { Store } from '../domain/ports/store.js';
import { pruneWebhookDeliveries, removePersonalData, retentionCutoff, type PersonalDataResult } from '../domain/personal-data/retention.js';
import type { InstanceLease } from './lease.js';

export interface RetentionScheduleOptions {
  /** RETENTION_DAYS; 0 = off. */
  days: number;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS; 0 = off (absent: off). */
  webhookDeliveryDays?: number;
  intervalMs: number;
  lease: InstanceLease;
  logger: Logger;
  now?: () => Date;
}

export interface RetentionPassResult {
  /** Null when RETENTION_DAYS is 0. */
  personalData: PersonalDataResult | null;
  /** Finished webhook deliveries deleted; null when WEBHOOK_DELIVERY_RETENTION_DAYS is 0. */
  webhookDeliveries: number | null;
}

export interface RetentionSchedule {
  /** One pass now, if this process's turn; null when both retentions are off or another instance runs it. */
  runOnce(): Promise<RetentionPassResult | null>;
  /** Stops the timer and any pass between two batches, and waits for it. */
  stop(): Promise<void>;
}

export function scheduleRetention(store: Store, opts: RetentionScheduleOptions): RetentionSchedule {
  const now = opts.now ?? (() => new Date());
  const webhookDays = opts.webhookDeliveryDays ?? 0;
  if (opts.days === 0) opts.logger.info('personal data retention is off (RETENTION_DAYS=0): records keep names and accounts until erased on request');
  if (opts.days === 0 && webhookDays === 0) return { runOnce: async () => null, stop: async () => {} };
  let stopped = false;
  let running: Promise<RetentionPassResult | null> | null = null;

  const removeOld = async (at: Date): Promise<PersonalDataResult> => {
    const result = await removePersonalData(store, { createdBefore: retentionCutoff(at, opts.days) }, { now: at, stopped: () => stopped });
    if (result.redacted + result.deleted + result.rechecks > 0) opts.logger.info({ ...result, olderThanDays: opts.days }, 'retention: personal data of old records removed');
    if (result.purge && !result.purge.complete) opts.logger.warn({ purge: result.purge }, 'retention: old copies of the removed data are still in the database files');
    return result;
  };
  const pruneDeliveries = async (at: Date): Promise<number> => {
    const deleted = await pruneWebhookDeliveries(store, retentionCutoff(at, webhookDays), { stopped: () => stopped });
    if (deleted > 0) opts.logger.info({ deleted, finishedMoreThanDaysAgo: webhookDays }, 'retention: finished webhook deliveries deleted');
    return deleted;
  };

  const pass = async (): Promise<RetentionPassResult | null> => {
    const mine = opts.lease.instanceId();
    if (mine === null || stopped) return null;
    const at = now();
    if ((await store.firstLiveLease(at)) !== mine) return null;
    const personalData = opts.days === 0 ? null : await removeOld(at);
    const webhookDeliveries = webhookDays === 0 || stopped ? null : await pruneDeliveries(at);
    return { personalData, webhookDeliveries };
  };
  // One pass at a time in this process: a slow pass is not doubled by the next tick.
  const runOnce = () => (running ??= pass().finally(() => (running = null)));
  const tick = () => void runOnce().catch((err: unknown) => opts.logger.error({ err }, 'retention pass failed; it runs again at the next interval'));

  const first = setTimeout(tick, 0);
  const timer = setInterval(tick, opts.intervalMs);
  first.unref();
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
