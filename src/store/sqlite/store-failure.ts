// The SQLite store's one-way switch to "failed". On Linux a failed fsync
// may leave the pages it could not write marked clean: they read back, no
// later fsync writes them, and power loss takes them. SQLite's WAL frames
// carry cumulative checksums, so one lost frame invalidates every later
// frame at recovery, and a success acknowledged after the failure can
// vanish. So, as PostgreSQL does since 2018 (data_sync_retry = off), a
// write whose effect on disk is unknown stops the store for good: nothing
// after it is acknowledged, every call fails fast, and only a new process
// (whose start checkpoints what it finds, connection.ts) serves again.
import { StoreFailedError } from '../../domain/ports/store.js';
import { mapError } from './errors.js';

export class StoreFailure {
  private error: StoreFailedError | null = null;
  private announce!: (err: StoreFailedError) => void;
  /** Resolves on the first failure; never rejects. */
  readonly failed = new Promise<StoreFailedError>((resolve) => (this.announce = resolve));

  /** Switches the store to failed (the first reason is kept) and returns the error to throw. */
  fail(reason: string, cause: unknown): StoreFailedError {
    if (!this.error) {
      this.error = new StoreFailedError(reason, { cause });
      this.announce(this.error);
    }
    return this.error;
  }

  /** Throws once the store has failed. */
  check(): void {
    if (this.error) throw this.error;
  }

  get current(): StoreFailedError | null {
    return this.error;
  }

  /**
   * Looks at an error a store call threw: an I/O error from SQLite (a
   * failed write or fsync inside a COMMIT, whose effect on disk is unknown)
   * fails the store. Returns the error to pass on.
   */
  inspect(err: unknown): unknown {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return this.fail(`SQLite reported ${code}`, err);
    return err;
  }
}

/** `ops` with every call refused once the store has failed, and every error looked at (`inspect`) and mapped. */
export function guarded<T extends object>(ops: T, failure: StoreFailure): T {
  const entries = Object.entries(ops).map(([name, op]) => [
    name,
    async (...args: unknown[]) => {
      failure.check();
      try {
        return await (op as (...a: unknown[]) => unknown)(...args);
      } catch (err) {
        throw mapError(failure.inspect(err));
      }
    },
  ]);
  return Object.fromEntries(entries) as T;
}
