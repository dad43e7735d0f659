// The node:cluster primary of `serve --workers N`: it forks N workers that
// each run the whole gateway and share the public and admin listeners, and
// it only supervises them. Credits stay correct across processes because
// every money rule is one atomic store write (SQLite: WAL + busy_timeout;
// PostgreSQL: row locks), never process memory. What is per worker: the
// API-key cache (a revocation made through one worker's admin API reaches
// the others within API_KEY_CACHE_TTL_MS, as between separate instances),
// MAX_INFLIGHT_PER_ACCOUNT, and the lease (src/schedules/lease.ts): each worker holds
// its own, so a crashed worker's holds are recovered without waiting for
// its replacement.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { MetricsHub } from '../metrics/cluster.js';
import { openStore } from '../store/open.js';
import { EXIT_STORE_FAILED } from './exit-codes.js';

/** Sent by a worker once both of its listeners are up. */
export const READY_MESSAGE = { type: 'slipgate:ready' } as const;

/** A replacement for a crashed worker waits this long, so a crash loop cannot spin. */
const RESTART_DELAY_MS = 1_000;

export function workerCount(setting: Config['WORKERS']): number {
  return setting === 'auto' || setting === 0 ? availableParallelism() : setting;
}

export async function superviseWorkers(config: Config, logger: Logger, count: number): Promise<void> {
  // Migrate once, here: workers starting together must not race on the schema.
  const store = await openStore(config.DATABASE_URL);
  await store.close();

  const ready = new Set<number>();
  // Tracked here, not read from cluster.workers: a worker leaves that map
  // only once both its exit and its IPC disconnect have been seen.
  const live = new Map<number, Worker>();
  let announced = false;
  let stopping = false;
  let exitCode = 0;
  // /metrics on any worker answers for all of them, through this process.
  const metrics = new MetricsHub(() => [...live.values()].filter((w) => ready.has(w.id)));

  const fork = (): void => {
    const worker = cluster.fork();
    live.set(worker.id, worker);
    logger.info({ worker: worker.id, pid: worker.process.pid }, 'worker started');
    worker.on('message', (message: unknown) => {
      if (metrics.handle(worker, message) || !isReady(message)) return;
      ready.add(worker.id);
      if (!announced && ready.size === count) {
        announced = true;
        logger.info({ workers: count }, 'all workers listening');
      }
    });
  };

  const stop = (signal: NodeJS.Signals, code: number): void => {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: live.size }, 'stopping workers');
    // Each worker drains its own in-flight verifications, then exits.
    for (const worker of live.values()) worker.process.kill(signal);
    if (live.size === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker.id);
    const wasReady = ready.delete(worker.id);
    if (stopping) {
      if (code !== 0) exitCode = Math.max(exitCode, code === EXIT_STORE_FAILED ? code : 1);
      if (live.size === 0) {
        logger.info({ exitCode }, 'all workers stopped');
        process.exit(exitCode);
      }
      return;
    }
    if (!wasReady) {
      // A worker that cannot start (port taken, bad config, database down)
      // would fail the same way again: give up instead of looping.
      logger.error({ worker: worker.id, code, signal }, 'worker exited before listening; stopping');
      stop('SIGTERM', 1);
      return;
    }
    if (code === EXIT_STORE_FAILED) {
      // Its store failed (a failed fsync): the others share the file and the
      // page cache, and a replacement would recover nothing while they keep
      // it open. All stop, and the supervisor restarts the whole server.
      logger.fatal({ worker: worker.id, exitCode: code }, 'a worker\u2019s store failed; stopping every worker');
      stop('SIGTERM', EXIT_STORE_FAILED);
      return;
    }
    // Its open credit holds are settled or released once its lease expires.
    logger.error({ worker: worker.id, code, signal }, 'worker died; starting a replacement');
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS);
  });

  // `on`, not `once`: a repeated signal must not kill the primary, because
  // workers exit at once when their primary goes away, in-flight work and all.
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  process.on('SIGINT', () => stop('SIGTERM', 0));
  process.on('SIGHUP', () => {
    for (const worker of live.values()) worker.process.kill('SIGHUP');
  });

  logger.info({ workers: count }, 'starting workers');
  for (let i = 0; i < count; i++) fork();
}

function isReady(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === READY_MESSAGE.type;
}
