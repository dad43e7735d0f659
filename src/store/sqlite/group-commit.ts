// Group commit for the verify path's writes. Under load most of SQLite's cost
// is the commit itself (each one appends every page it touched to the WAL),
// and concurrent verifications touch the same pages: the account row, the
// holds table, the audit indexes. So writes queued in one event-loop turn run
// together in one IMMEDIATE transaction, each inside its own savepoint, so a
// write that throws is rolled back alone. Nobody hears "done" before the
// commit, so a crash still loses only writes that were never acknowledged.
//
// Only a batch with a durable write (a settle: an answered charge) waits for
// the disk (synchronous=FULL). A batch of holds and releases commits with
// synchronous=NORMAL: a hold lost to power loss is money never taken (its
// request never got an answer), a release lost leaves a hold that recovery
// refunds, and the next durable commit syncs the WAL up to and past them.
import type Database from 'better-sqlite3';

interface Job {
  write: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to share pages; small enough that one batch never stalls the loop. */
const MAX_BATCH = 256;

export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly commitBatch: Database.Transaction<(jobs: Job[]) => Outcome[]>;

  constructor(private readonly db: Database.Database) {
    // A transaction function called inside another one runs as a savepoint.
    const savepoint = db.transaction((write: () => unknown) => write());
    this.commitBatch = db.transaction((jobs: Job[]) =>
      jobs.map((job): Outcome => {
        try {
          return { ok: true, value: savepoint(job.write) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /**
   * Runs `write` in the next batch; resolves once its batch has committed,
   * and for a `durable` write once the commit is on disk.
   */
  run<T>(write: () => T, durable = true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, durable, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is queued now (before the database closes). */
  flushAll(): void {
    while (this.queue.length > 0) this.flush();
  }

  private flush(): void {
    const jobs = this.queue.splice(0, MAX_BATCH);
    if (jobs.length === 0) return;
    if (this.queue.length === 0) this.scheduled = false;
    else setImmediate(() => this.flush());
    let outcomes: Outcome[];
    const lazy = !jobs.some((job) => job.durable);
    try {
      // Every other write of the store (top-ups, accounts, keys) stays FULL.
      if (lazy) this.db.pragma('synchronous = NORMAL');
      outcomes = this.commitBatch.immediate(jobs);
    } catch (error) {
      // BEGIN or COMMIT failed (e.g. busy past busy_timeout): nothing was applied.
      for (const job of jobs) job.reject(error);
      return;
    } finally {
      // A store closed under a late write has nothing left to restore.
      if (lazy && this.db.open) this.db.pragma('synchronous = FULL');
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
