// Group commit of settles across requests. Each settle must be on disk
// before its caller is answered, and on PostgreSQL a durable commit waits
// for a WAL flush; so the settles that arrive while one batch commits go
// together in the next, as one statement and one flush. One batch is in
// flight at a time per process: the queue fills while the disk works.
import type { VerifyTransactionRecord } from '../../domain/types.js';
import { StoreError } from '../../domain/ports/store.js';
import type { Run } from './db.js';
import * as row from './rows.js';

/** Enough to share one flush; small enough that a batch never holds many row locks long. */
const MAX_BATCH = 128;

/** The settle of one hold (see holds.ts); also the fallback when a batch fails. */
const SETTLE_HOLD = {
  name: 'slipgate_settle_hold',
  text: `WITH claimed AS (
     DELETE FROM credit_holds WHERE id = $1 AND account_id = $2 RETURNING account_id
   ), recorded AS (
     INSERT INTO verify_transactions (${row.VT_COLUMNS})
     SELECT $1::text, account_id, $3::text, $4::text, $5::text, $6::text, $7::numeric, $8::text, $9::text, $10::text, $11::integer, $12::jsonb, $13::timestamptz, $14::text
     FROM claimed
     RETURNING id
   ), charged AS (
     UPDATE accounts SET usage = usage + 1 WHERE id IN (SELECT account_id FROM claimed)
   )
   SELECT EXISTS (SELECT 1 FROM recorded) AS settled`,
};

// The same for many holds: a hold already gone (recovered) is simply not
// claimed, and only its own caller hears of it.
const SETTLE_MANY = {
  name: 'slipgate_settle_many',
  text: `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[], $9::text[],
                          $10::text[], $11::integer[], $12::jsonb[], $13::timestamptz[], $14::text[])
       AS t(${row.VT_COLUMNS})
   ), claimed AS (
     DELETE FROM credit_holds h USING input i WHERE h.id = i.id AND h.account_id = i.account_id RETURNING h.id, h.account_id
   ), recorded AS (
     INSERT INTO verify_transactions (${row.VT_COLUMNS})
     SELECT ${row.VT_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')} FROM input i JOIN claimed c ON c.id = i.id
     RETURNING id
   ), charged AS (
     UPDATE accounts a SET usage = a.usage + n.count FROM (SELECT account_id, count(*)::int AS count FROM claimed GROUP BY account_id) n
     WHERE a.id = n.account_id
   )
   SELECT id FROM recorded`,
};

interface Job {
  record: VerifyTransactionRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SettleBatcher {
  private queue: Job[] = [];
  private flushing = false;

  constructor(private readonly run: Run) {}

  /** Resolves once this settle is committed and flushed; StoreError 'conflict' when its hold is gone. */
  settle(record: VerifyTransactionRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const jobs = this.queue.splice(0, MAX_BATCH);
        await (jobs.length === 1 ? this.one(jobs[0]!) : this.many(jobs));
      }
    } finally {
      this.flushing = false;
    }
  }

  private async one(job: Job): Promise<void> {
    try {
      // Deleting the hold is the claim: a concurrent release or recovery of
      // the same hold waits on the row and then finds it gone.
      const { rows } = await this.run<{ settled: boolean }>(SETTLE_HOLD, row.vtParams(job.record));
      if (rows[0]!.settled) job.resolve();
      else job.reject(new StoreError('conflict', `hold ${job.record.id} no longer exists`));
    } catch (err) {
      job.reject(err);
    }
  }

  private async many(jobs: Job[]): Promise<void> {
    let settled: Set<string>;
    try {
      const { rows } = await this.run<{ id: string }>(SETTLE_MANY, columns(jobs.map((j) => row.vtParams(j.record))));
      settled = new Set(rows.map((r) => r.id));
    } catch {
      // One bad record, or a deadlock with another process's batch: each on its own, so only a bad one fails.
      await Promise.all(jobs.map((job) => this.one(job)));
      return;
    }
    for (const job of jobs) {
      if (settled.has(job.record.id)) job.resolve();
      else job.reject(new StoreError('conflict', `hold ${job.record.id} no longer exists`));
    }
  }
}

/** Rows of parameters to one array per column (NUL bytes replaced, as for single statements). */
function columns(rows: unknown[][]): unknown[][] {
  return rows[0]!.map((_, i) => rows.map((r) => (typeof r[i] === 'string' ? row.noNul(r[i] as string) : r[i])));
}
