// Group commit for the verify path's writes. Under load most of SQLite's cost
// is the commit itself (each one appends every page it touched to the WAL),
// and concurrent verifications touch the same pages: the account row, the
// holds table, the audit indexes. So writes queued in one event-loop turn run
// together in one IMMEDIATE transaction, each inside its own savepoint, so a
// write that throws is rolled back alone. Nobody hears "done" before the
// commit, so a crash still loses only writes that were never acknowledged.
//
// A commit does not wait for the WAL fsync. A batch commits with
// synchronous=NORMAL (the WAL is written, not synced), and a durable write (a
// settle: an answered charge; an audit record) is acknowledged only after
// the WAL file has been fsynced on libuv's thread pool (wal-sync.ts). That is
// what synchronous=FULL would have done inside the commit, but batches keep
// committing while the disk works, and one fsync covers every batch
// committed before it started. A hold or a release needs no sync at all: a
// hold lost to power loss is money never taken (its request never got an
// answer), a release lost leaves a hold that recovery refunds, and the next
// sync makes the WAL durable up to and past them.
//
// The event loop does still wait for the disk now and then: once the WAL
// passes wal_autocheckpoint (1000 pages), the COMMIT that crossed it runs a
// checkpoint on this thread, which copies the WAL into the database file and
// fsyncs both. SQLite ignores a failure there and keeps the WAL; the next
// checkpoint copies the same frames again, and a lost WAL page is still
// caught, because Linux reports the write-back error to wal-sync's own
// descriptor too.
//
// A COMMIT that fails with an I/O error, or a WAL sync that fails, leaves
// the disk in a state nobody knows: the store fails for good
// (store-failure.ts) and every later write is refused here before it runs.
import type Database from 'better-sqlite3';
import type { StoreFailure } from './store-failure.js';
import type { WalSync } from './wal-sync.js';

interface Job {
  write: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to share pages; small enough that one batch never stalls the loop. */
const MAX_BATCH = 256;

/**
 * The longest a riding write waits for a batch to join before it starts
 * one. A webhook attempt's record rides: committed on its own, each batch of
 * them would write to the WAL pages the next settles write again, and under
 * load a batch of settles comes every few milliseconds.
 */
const RIDE_MS = 20;

export class GroupCommit {
  private queue: Job[] = [];
  /** Writes waiting to join the next batch (run(..., { ride: true })). */
  private riders: Job[] = [];
  private rideTimer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private readonly commitBatch: Database.Transaction<(jobs: Job[]) => Outcome[]>;

  constructor(
    private readonly db: Database.Database,
    private readonly wal: WalSync,
    private readonly failure: StoreFailure,
  ) {
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
   * and for a `durable` write once the commit is on disk. A `ride` write
   * starts no batch of its own unless none comes within RIDE_MS: for writes
   * nobody waits on (a lost one is repeated, never wrong).
   */
  run<T>(write: () => T, durable = true, { ride = false } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.failure.check();
      const job = { write, durable, resolve: resolve as (value: unknown) => void, reject };
      if (ride) {
        this.riders.push(job);
        this.rideTimer ??= setTimeout(() => {
          this.rideTimer = null;
          this.flush();
        }, RIDE_MS);
        return;
      }
      this.queue.push(job);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is queued and waits until it is on disk (before the database closes). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.riders.length > 0) this.flush();
    await this.wal.idle();
  }

  private flush(): void {
    const jobs = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length === 0) this.scheduled = false;
    else setImmediate(() => this.flush());
    // Riders join, within the batch's bound: what is left goes with the next.
    jobs.push(...this.riders.splice(0, MAX_BATCH - jobs.length));
    if (this.riders.length === 0 && this.rideTimer) {
      clearTimeout(this.rideTimer);
      this.rideTimer = null;
    } else if (this.riders.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (jobs.length === 0) return;
    const failed = this.failure.current;
    if (failed) {
      for (const job of jobs) job.reject(failed);
      return;
    }
    let outcomes: Outcome[];
    try {
      // Every other write of the store (top-ups, accounts, keys) stays FULL.
      // Compiled on every call, and it must be: SQLite applies `synchronous`
      // when the PRAGMA is prepared, so a statement kept for reuse sets nothing.
      this.db.pragma('synchronous = NORMAL');
      outcomes = this.commitBatch.immediate(jobs);
    } catch (error) {
      // BEGIN or COMMIT failed. Busy past busy_timeout: nothing was applied.
      // An I/O error: nobody knows, and the store fails.
      const passed = this.failure.inspect(error);
      for (const job of jobs) job.reject(passed);
      return;
    } finally {
      // A store closed under a late write has nothing left to restore.
      if (this.db.open) this.db.pragma('synchronous = FULL');
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) job.reject(this.failure.inspect(outcome.error));
      else if (job.durable) this.wal.afterSync(() => this.acknowledge(job, outcome.value), (err) => job.reject(this.failure.fail(syncFailure(err), err)));
      else job.resolve(outcome.value);
    });
  }

  /** The sync covered this write; but if the store failed meanwhile (another write's I/O error), it promises nothing. */
  private acknowledge(job: Job, value: unknown): void {
    const failed = this.failure.current;
    if (failed) job.reject(failed);
    else job.resolve(value);
  }
}

function syncFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return `the fsync of the SQLite WAL failed${typeof code === 'string' ? ` (${code})` : ''}`;
}
