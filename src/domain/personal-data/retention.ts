// Removing personal data: retention (records older than RETENTION_DAYS) and
// erasure on request (every record of one account). Verification records
// are redacted, never deleted: the account's usage must keep matching its
// records (reconcile.ts) and the duplicate check must still find the slip
// (it reads account, transaction reference and sending bank, which stay).
// Failed-request records are deleted: nothing is charged or counted by them.
// The ledger, usage counters and admin events are never touched.
//
// Finished re-checks (domain/rechecks: a slip the bank did not know yet,
// asked again until it ended verified, refused, superseded, unconfirmed or
// no_credit) keep the slip's QR text and, when verified, the bank's answer.
// They are redacted, not deleted (rechecks/redaction.ts): GET
// /api/v1/verifications/{id} and the checkout page still answer from them.
// Open re-checks are left alone: they are still at work, for minutes; the
// next pass reaches them once they end.
//
// The same pass deletes finished webhook deliveries (delivered or failed)
// after WEBHOOK_DELIVERY_RETENTION_DAYS: their bodies and attempts are only
// worth keeping while someone may look at or redeliver them, and at 1,000
// events a second they are 86 million rows a day.
import type { PassBatchResult, PassCursor, PersonalDataScope, PurgeReport, Store } from '../ports/store.js';
import { redactPersonalData } from './redaction.js';
import { redactRecheckPersonalData } from '../rechecks/redaction.js';

/**
 * Small enough that a batch holds the SQLite write lock, and the event loop
 * of the process running it, for a few milliseconds (about 5 ms measured for
 * 100 records with full bank answers, 20 ms for 500): a verification that
 * arrives meanwhile waits no longer than that.
 */
const RETENTION_BATCH = 100;

const DAY_MS = 86_400_000;

export interface PersonalDataResult {
  /** Verification records redacted (or, in a dry run, that would be). */
  redacted: number;
  /** Failed-request records deleted (or, in a dry run, that would be). */
  deleted: number;
  /** Finished re-checks redacted (or, in a dry run, that would be). */
  rechecks: number;
  dryRun: boolean;
  /**
   * What the engine did after the pass so the old values leave its files
   * too. Absent for a dry run or a pass stopped early (the next pass does it).
   */
  purge?: PurgeReport;
}

export interface RemoveOptions {
  /** The redaction time written on the records. */
  now: Date;
  dryRun?: boolean;
  batchSize?: number;
  /** Asked between batches: true stops the pass early (shutdown); the rest waits for the next one. */
  stopped?: () => boolean;
  /** Awaited after each batch with the totals so far (progress; the pass goes on once it resolves). */
  onBatch?: (progress: { redacted: number; deleted: number; rechecks: number }) => void | Promise<void>;
}

/** Records created before this are past the retention period of `days` days, as of `now`. */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Redacts the verification records, deletes the failed-request records and
 * redacts the finished re-checks in `scope`, batch by batch, each batch
 * continuing from where the last one stopped, yielding to the event loop
 * between batches so verifications on this process never wait behind a long
 * pass. Then asks the engine to drop the old versions of what it removed
 * from its files.
 */
export async function removePersonalData(store: Store, scope: PersonalDataScope, opts: RemoveOptions): Promise<PersonalDataResult> {
  if (opts.dryRun) {
    const counts = await store.countPersonalData(scope);
    return { redacted: counts.verifyTransactions, deleted: counts.requestErrors, rechecks: counts.rechecks, dryRun: true };
  }
  const limit = opts.batchSize ?? RETENTION_BATCH;
  const stopped = opts.stopped ?? (() => false);
  const totals = { redacted: 0, deleted: 0, rechecks: 0 };
  const pass = (field: keyof typeof totals, step: (after: PassCursor | null) => Promise<PassBatchResult>) =>
    inBatches(step, stopped, async (changed) => {
      totals[field] += changed;
      await opts.onBatch?.({ ...totals });
    });
  const finished = (await pass('redacted', (after) => store.redactVerifyTransactions(scope, redactPersonalData, opts.now, { limit, after }))) &&
    (await pass('deleted', (after) => store.deleteRequestErrors(scope, { limit, after }))) &&
    (await pass('rechecks', (after) => store.redactFinishedRechecks(scope, redactRecheckPersonalData, opts.now, { limit, after })));
  // Even a pass that found nothing: an earlier one's purge may not have finished (a busy WAL).
  if (!finished) return { ...totals, dryRun: false };
  return { ...totals, dryRun: false, purge: await store.purgeRemovedData() };
}

export interface PruneOptions {
  batchSize?: number;
  /** Asked between batches: true stops early (shutdown); the rest waits for the next pass. */
  stopped?: () => boolean;
}

/**
 * Deletes the webhook deliveries that finished before `finishedBefore`, in
 * batches (each a short write from an index range that starts where the
 * last one stopped), yielding between them. Pending and retrying deliveries
 * have no finish time and are never deleted. Resolves to how many it deleted.
 */
export async function pruneWebhookDeliveries(store: Store, finishedBefore: Date, opts: PruneOptions = {}): Promise<number> {
  const limit = opts.batchSize ?? RETENTION_BATCH;
  let deleted = 0;
  await inBatches((after) => store.deleteFinishedWebhookDeliveries(finishedBefore, { limit, after }), opts.stopped ?? (() => false), async (changed) => {
    deleted += changed;
  });
  return deleted;
}

/** Runs `step` from the start of the scope to its end, each batch after the last; false when stopped before the end. */
async function inBatches(step: (after: PassCursor | null) => Promise<PassBatchResult>, stopped: () => boolean, done: (changed: number) => Promise<void>): Promise<boolean> {
  let after: PassCursor | null = null;
  while (!stopped()) {
    const batch = await step(after);
    if (batch.last === null) return true;
    await done(batch.changed);
    after = batch.last;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return false;
}
