// Removing personal data: retention (records older than RETENTION_DAYS) and
// erasure on request (every record of one account). Verification records
// are redacted, never deleted: the account's usage must keep matching its
// records (reconcile.ts) and the duplicate check must still find the slip
// (it reads account, transaction reference and sending bank, which stay).
// Failed-request records are deleted: nothing is charged or counted by them.
// The ledger, usage counters and admin events are never touched.
import type { PersonalDataScope, Store } from './ports/store.js';
import { redactPersonalData } from './redaction.js';

/** Small enough that one batch holds the SQLite write lock for milliseconds. */
const RETENTION_BATCH = 500;

const DAY_MS = 86_400_000;

export interface PersonalDataResult {
  /** Verification records redacted (or, in a dry run, that would be). */
  redacted: number;
  /** Failed-request records deleted (or, in a dry run, that would be). */
  deleted: number;
  dryRun: boolean;
}

export interface RemoveOptions {
  /** The redaction time written on the records. */
  now: Date;
  dryRun?: boolean;
  batchSize?: number;
  /** Asked between batches: true stops the pass early (shutdown); the rest waits for the next one. */
  stopped?: () => boolean;
}

/** Records created before this are past the retention period of `days` days, as of `now`. */
export function retentionCutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Redacts the verification records and deletes the failed-request records
 * in `scope`, batch by batch, yielding to the event loop between batches so
 * verifications on this process never wait behind a long pass.
 */
export async function removePersonalData(store: Store, scope: PersonalDataScope, opts: RemoveOptions): Promise<PersonalDataResult> {
  if (opts.dryRun) {
    const counts = await store.countPersonalData(scope);
    return { redacted: counts.verifyTransactions, deleted: counts.requestErrors, dryRun: true };
  }
  const batch = opts.batchSize ?? RETENTION_BATCH;
  const stopped = opts.stopped ?? (() => false);
  const redacted = await inBatches(() => store.redactVerifyTransactions(scope, redactPersonalData, opts.now, batch), stopped);
  const deleted = await inBatches(() => store.deleteRequestErrors(scope, batch), stopped);
  return { redacted, deleted, dryRun: false };
}

/** Runs `step` until it finds nothing left (another process may be doing the same; both finish). */
async function inBatches(step: () => Promise<number>, stopped: () => boolean): Promise<number> {
  let total = 0;
  while (!stopped()) {
    const n = await step();
    total += n;
    if (n === 0) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return total;
}
