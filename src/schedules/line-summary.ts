// The LINE staff's daily summary (domain/line/daily-summary.ts) at
// LINE_SUMMARY_AT, Bangkok time, on one instance: the live lease with the
// smallest id, as payment expiry is chosen (schedules/payment-expiry.ts).
// Sent in the few minutes after the time, once per day per process: a
// process that restarts inside those minutes may send that day's again, one
// down for all of them skips it (docs/line.md#daily-summary).
import type { Logger } from 'pino';
import type { LineApi } from '../domain/ports/line-api.js';
import type { Store } from '../domain/ports/store.js';
import type { SecretBox } from '../domain/secret-box.js';
import { bangkokDayStart } from '../domain/bangkok-time.js';
import { sendDailySummaries } from '../domain/line/daily-summary.js';
import type { InstanceLease } from './lease.js';
import { leasedPass, type LeasedPass } from './leased-pass.js';

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

/** runOnce: how many pushes went out, null when none was due (or it is another instance's turn). */
export type LineSummarySchedule = LeasedPass<number>;

export function scheduleLineSummary(store: Store, opts: LineSummaryOptions): LineSummarySchedule {
  const [hours, minutes] = (opts.at ?? '00:00').split(':').map(Number) as [number, number];
  let sentDay: number | null = null;
  const options = { ...opts, intervalMs: TICK_MS, failure: 'LINE daily summary failed', now: opts.now ?? (() => new Date()) };
  return leasedPass(store, options, async (at) => {
    const day = bangkokDayStart(at).getTime();
    const due = day + (hours * 60 + minutes) * 60_000;
    if (opts.at === null || sentDay === day || at.getTime() < due || at.getTime() >= due + WINDOW_MS) return null;
    sentDay = day;
    const sent = await sendDailySummaries({ store, secrets: opts.secrets, api: opts.api }, at);
    opts.logger.info({ pushes: sent }, 'LINE daily summary sent');
    return sent;
  });
}
