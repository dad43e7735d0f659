// Embedded store on better-sqlite3. Every money change is one SQLite
// transaction, so a crash leaves either all of it or none of it. The
// operations live in one file per section; this class binds them to one
// connection.
import type { Store } from '../../domain/ports/store.js';
import { bindOps, type Bound } from '../bind-ops.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { migrate, openLite, type Lite } from './connection.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';

type Operations = Bound<typeof accounts, Lite> & Bound<typeof holds, Lite> & Bound<typeof ledger, Lite> & Bound<typeof admin, Lite> & Bound<typeof audit, Lite>;

// The sections' operations are assigned in the constructor; this declares them on the class.
export interface SqliteStore extends Operations {}

export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly lite: Lite;

  /** `path` is a file path or ':memory:'. */
  constructor(path: string) {
    this.lite = openLite(path);
    for (const section of [accounts, holds, ledger, admin, audit]) Object.assign(this, bindOps(this.lite, section));
  }

  async migrate(): Promise<void> {
    migrate(this.lite.db);
  }

  async ping(): Promise<void> {
    this.lite.sql('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (!this.lite.db.open) return;
    await this.lite.writes.drain();
    this.lite.db.close();
    this.lite.wal.close();
  }
}
