// The LINE staff's daily summary (domain/line/daily-summary.ts) at
// LINE_SUMMARY_AT, Bangkok time, on one instance: the live lease with the
// smallest id, as payment expiry is chosen (payment-expiry-schedule.ts).
// Sent in the few minutes after the time, once per day per process: a
// process that restarts inside those minutes may send that day's again, one
// down for all of them skips it (docs/line.md#daily-summary).
import type { Logger } from 'pino';
import type { LineApi } from './domain/ports/line-api.js';
import type { Store } from './domain/ports/store.js';
import type { SecretBox } from './domain/secret-box.js';
import { bangkokDayStart, sendDailySummaries } from './domain/line/daily-summary.js';
import type { InstanceLease } from './lease.js';

/** Looked at this often; the summary goes out within a tick of its time. */
const TICK_MS = 60_000;
/** How long after the time the summary may still go out (a tick delayed, a lease handed over). */
const WINDOW_MS = 5 * 60_000;

export interface LineSummaryOptions {
  lease: InstanceLease;
  logger: Logger;
  secrets: SecretBox;
  api: LineApi;
  /** `HH:MM` in Bangkok, or null: no summary. */
  at: string | null;
  now?: () => Date;
}

export interface LineSummarySchedule {
  /** Sends the summary now if it is due, unsent today and this process's turn; how many pushes went out, null when none was due. */
  runOnce(): Promise<number | null>;
  stop(): Promise<void>;
}

export function scheduleLineSummary(store: Store, opts: LineSummaryOptions): LineSummarySchedule {
  const now = opts.now ?? (() => new Date());
  const [hours, minutes] = (opts.at ?? '00:00').split(':').map(Number) as [number, number];
  let sentDay: number | null = null;
  let stopped = false;
  let running: Promise<number | null> | null = null;

  const pass = async (): Promise<number | null> => {
    const at = now();
    const day = bangkokDayStart(at).getTime();
    const due = day + (hours * 60 + minutes) * 60_000;
    if (opts.at === null || stopped || sentDay === day || at.getTime() < due || at.getTime() >= due + WINDOW_MS) return null;
    const mine = opts.lease.instanceId();
    if (mine === null || (await store.firstLiveLease(at)) !== mine) return null;
    sentDay = day;
    const sent = await sendDailySummaries({ store, secrets: opts.secrets, api: opts.api }, at);
    opts.logger.info({ pushes: sent }, 'LINE daily summary sent');
    return sent;
  };
  const runOnce = () => (running ??= pass().finally(() => (running = null)));
  const timer = setInterval(() => void runOnce().catch((err: unknown) => opts.logger.error({ err }, 'LINE daily summary failed')), TICK_MS);
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
