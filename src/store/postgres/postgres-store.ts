// Server store on PostgreSQL (node-postgres Pool). Several slipgate processes
// may share one database, so every money change is a single statement or a
// single transaction whose guards are evaluated by PostgreSQL under row
// locks, never read-modify-write in JavaScript. The operations live in one
// file per section; this class binds them to one pool.
import type { Store } from '../../domain/ports/store.js';
import { bindOps, type Bound } from '../bind-ops.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { PgDb } from './db.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';
import * as retention from './retention.js';
import type { PostgresStoreOptions } from './sql.js';

export type { PostgresStoreOptions } from './sql.js';

type Operations = Bound<typeof accounts, PgDb> & Bound<typeof holds, PgDb> & Bound<typeof ledger, PgDb> & Bound<typeof admin, PgDb> & Bound<typeof audit, PgDb> & Bound<typeof retention, PgDb>;

// The sections' operations are assigned in the constructor; this declares them on the class.
export interface PostgresStore extends Operations {}

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private readonly db: PgDb;

  /** `url` is a postgres:// URL; see PostgresStoreOptions for our own query parameters. */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.db = new PgDb(url, options);
    for (const section of [accounts, holds, ledger, admin, audit, retention]) Object.assign(this, bindOps(this.db, section));
  }

  migrate(): Promise<void> {
    return this.db.migrate();
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
