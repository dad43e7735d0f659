// Makes committed WAL frames durable without holding up the event loop:
// fsync(2) of the -wal file on libuv's thread pool. Linux syncs a file's
// data whichever descriptor asks, so our own descriptor covers the frames
// SQLite wrote through its own. While one sync runs, later commits wait for
// the next, which covers all of them: one fsync per burst, not per commit.
// The WAL file outlives every checkpoint while this connection is open
// (SQLite deletes it only when the last connection closes), so the
// descriptor stays valid; frames a checkpoint overwrites were synced into
// the database file first.
//
// The descriptor is opened at once, not at the first sync: Linux (4.13+)
// reports a write-back error of the file to every descriptor open when it
// happened, so ours also hears of one that SQLite's own fsync (inside an
// auto-checkpoint, whose errors SQLite ignores) or the kernel's background
// write-back ran into. A failed sync is final (store-failure.ts says why):
// it fails its waiters and every later one, never acknowledging again.
import { close, fsync, openSync } from 'node:fs';

interface Waiter {
  done: () => void;
  failed: (err: unknown) => void;
}

export interface WalSync {
  /** Calls `done` once everything committed so far is on disk, or `failed` if this or any earlier sync failed. */
  afterSync(done: () => void, failed: (err: unknown) => void): void;
  /** Resolves when no sync is running or waiting. */
  idle(): Promise<void>;
  /** After idle(): releases the descriptor. */
  close(): void;
}

/** `walPath` null: an in-memory database, nothing to sync. */
export function walSync(walPath: string | null): WalSync {
  return walPath === null ? NOTHING_TO_SYNC : new FileWalSync(walPath);
}

const NOTHING_TO_SYNC: WalSync = {
  afterSync: (done) => done(),
  idle: async () => {},
  close: () => {},
};

class FileWalSync implements WalSync {
  private fd: number | null = null;
  /** The first sync that failed: every later waiter gets its error. */
  private failure: { err: unknown } | null = null;
  private waiting: Waiter[] = [];
  /** A sync is running or about to start. */
  private busy = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly path: string) {
    try {
      this.fd = openSync(path, 'r+');
    } catch {
      // No WAL file yet: opened by the first sync, which fails if it still cannot.
    }
  }

  afterSync(done: () => void, failed: (err: unknown) => void): void {
    this.waiting.push({ done, failed });
    if (this.busy) return;
    this.busy = true;
    // After the current task, so every write its batch committed shares this sync.
    queueMicrotask(() => this.sync());
  }

  idle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  close(): void {
    if (this.fd !== null) close(this.fd, () => {});
    this.fd = null;
  }

  private sync(): void {
    const batch = this.waiting;
    this.waiting = [];
    const finish = (err: unknown) => {
      // A failed fsync may have dropped the pages it could not write, so a
      // later success proves nothing about them, nor about any later frame:
      // these writes and all later ones stay failed, never acknowledged.
      if (err && !this.failure) this.failure = { err };
      for (const waiter of batch) {
        if (this.failure) waiter.failed(this.failure.err);
        else waiter.done();
      }
      if (this.waiting.length > 0) return this.sync();
      this.busy = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    if (this.failure) return finish(this.failure.err);
    try {
      this.fd ??= openSync(this.path, 'r+');
    } catch (err) {
      return finish(err);
    }
    fsync(this.fd, (err) => finish(err));
  }
}
