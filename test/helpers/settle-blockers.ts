// Ways to keep slipgate's settle from committing while a test kills it:
// through the real engine (a lock the test holds) or the real network (a
// partition between slipgate and its database).
import Database from 'better-sqlite3';
import pg from 'pg';
import { eventually } from './child.js';
import type { TestEngine } from './engines.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** A way to keep slipgate's settle from committing, through the real engine or network. */
export interface SettleBlocker {
  how: string;
  /** What recovery finds: the settle never reached the store (released), or reached it and commits on its own (charged). */
  outcome: 'released' | 'charged';
  prepare(databaseUrl: string): Promise<SettleBlock>;
}

interface SettleBlock {
  /** The DATABASE_URL slipgate gets. */
  slipgateUrl: string;
  /** Blocks; called once the hold exists and before the bank answers. */
  engage(holdId: string): Promise<void>;
  /** Resolves when the settle has observably reached the block (or cannot be observed, but cannot commit). */
  settleStuck(): Promise<void>;
  lift(): Promise<void>;
  dispose(): Promise<void>;
}

export function settleBlockers(engine: TestEngine): SettleBlocker[] {
  if (engine.name === 'sqlite') return [sqliteWriteLock];
  if (engine.name === 'postgres') return [postgresRowLock, networkPartition];
  return [networkPartition];
}

/**
 * The test's own connection holds SQLite's write lock (BEGIN IMMEDIATE), so
 * the settle waits in its busy handler; the kill lands well inside its 5 s.
 */
const sqliteWriteLock: SettleBlocker = {
  how: 'SQLite write lock held by another connection',
  outcome: 'released',
  async prepare(databaseUrl) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    return {
      slipgateUrl: databaseUrl,
      engage: async () => void db.exec('BEGIN IMMEDIATE'),
      // SQLite shows no waiter; what matters is that nothing can commit while the lock is held.
      settleStuck: async () => {},
      lift: async () => void db.exec('ROLLBACK'),
      dispose: async () => void db.close(),
    };
  },
};

/**
 * The test locks the hold's row (SELECT … FOR UPDATE) and waits until a
 * slipgate backend is seen waiting for it in pg_locks: the settle statement
 * is at the server. PostgreSQL finishes a statement whose client died, so
 * once the lock is gone it commits: the charge stands.
 */
const postgresRowLock: SettleBlocker = {
  how: 'PostgreSQL row lock on the hold',
  outcome: 'charged',
  async prepare(databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    // The database is dropped WITH (FORCE) at the end; that is not a failure.
    client.on('error', () => {});
    await client.connect();
    return {
      slipgateUrl: databaseUrl,
      async engage(holdId) {
        await client.query('BEGIN');
        await client.query('SELECT id FROM credit_holds WHERE id = $1 FOR UPDATE', [holdId]);
      },
      settleStuck: () =>
        eventually(async () => {
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE NOT l.granted AND a.datname = current_database() AND a.pid <> pg_backend_pid()`,
          );
          return rows[0]!.n > 0;
        }),
      lift: async () => void (await client.query('ROLLBACK')),
      dispose: () => client.end(),
    };
  },
};

/**
 * slipgate reaches its database through a TCP proxy that swallows everything
 * once engaged (a network partition): the settle's first request is seen
 * arriving at the proxy and never reaches the server.
 */
const networkPartition: SettleBlocker = {
  how: 'network partition between slipgate and the database',
  outcome: 'released',
  async prepare(databaseUrl) {
    const direct = /^(\w+:\/\/(?:[^@/]*@)?)([^:/]+):(\d+)(.*)$/.exec(databaseUrl);
    if (!direct) throw new Error(`cannot route ${databaseUrl} through a proxy`);
    const [, scheme, host, port, rest] = direct;
    const proxy: TcpProxy = await startTcpProxy({ host: host!, port: Number(port) });
    let swallowedAtCut = 0;
    return {
      slipgateUrl: `${scheme}127.0.0.1:${proxy.port}${rest}`,
      async engage() {
        proxy.cut('blackhole');
        swallowedAtCut = proxy.swallowed;
      },
      settleStuck: () => eventually(async () => proxy.swallowed > swallowedAtCut),
      lift: async () => proxy.restore(),
      dispose: () => proxy.close(),
    };
  },
};
