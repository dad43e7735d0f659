// One statement for many requests' writes. While a batch is at the database,
// the writes that arrive queue for the next one: under load each statement
// carries many writes (one parse, one plan, one commit for all of them), and
// a lone write still goes at once. One batch is in flight per process.
//
// One SQL text serves every batch size: a lone write is a batch of one. A
// batch statement that fails (one bad row, or a deadlock with another
// process's batch) is retried as one batch of one per write, so a write only
// ever fails for its own reason; a batch of one that PostgreSQL chose as a
// deadlock's victim is tried again (the statement is its own transaction, so
// it left nothing behind).

/** A write's own outcome inside a batch. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Job<In, Out> {
  input: In;
  resolve: (value: Out) => void;
  reject: (err: unknown) => void;
}

export interface BatchStatements<In, Out> {
  /** The most writes one statement carries (bounds its row locks and size). */
  maxBatch: number;
  /** One or many writes in one statement; an outcome per input, in order. */
  many(inputs: In[]): Promise<Settled<Out>[]>;
  /** A failure that changed nothing and says nothing about the write (a deadlock): worth another try. */
  retryable?(err: unknown): boolean;
}

/** Tries of a batch of one that keeps failing for a retryable reason. */
const MAX_TRIES = 3;

export class StatementBatch<In, Out> {
  private queue: Job<In, Out>[] = [];
  private flushing = false;

  constructor(private readonly statements: BatchStatements<In, Out>) {}

  run(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const jobs = this.queue.splice(0, this.statements.maxBatch);
        await (jobs.length === 1 ? this.one(jobs[0]!) : this.many(jobs));
      }
    } finally {
      this.flushing = false;
    }
  }

  /** A lone write, and the fallback: the same statement with one row. */
  private async one(job: Job<In, Out>): Promise<void> {
    let outcome: Settled<Out>;
    for (let tries = 1; ; tries++) {
      try {
        [outcome] = (await this.statements.many([job.input])) as [Settled<Out>];
        break;
      } catch (err) {
        if (tries < MAX_TRIES && this.statements.retryable?.(err)) continue;
        job.reject(err);
        return;
      }
    }
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.error);
  }

  private async many(jobs: Job<In, Out>[]): Promise<void> {
    let outcomes: Settled<Out>[];
    try {
      outcomes = await this.statements.many(jobs.map((j) => j.input));
    } catch {
      await Promise.all(jobs.map((job) => this.one(job)));
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}

/** Rows of parameters to one array per column, for `unnest` (NUL bytes replaced, as for single statements). */
export function columns(rows: unknown[][], noNul: (s: string) => string): unknown[][] {
  return rows[0]!.map((_, i) => rows.map((r) => (typeof r[i] === 'string' ? noNul(r[i] as string) : r[i])));
}
