// The composition root: the one place that decides how each service is
// built. run() (main.ts), the CLI commands and the tests all get their
// services here; GraphQL and the CLI receive them and construct none.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { AccountService } from './domain/accounts.js';
import { AdminActions } from './domain/admin-actions.js';
import { AdminTokenService } from './domain/admin-tokens.js';
import { newId } from './domain/api-key.js';
import { KeyResolver } from './domain/key-lookup.js';
import type { Store } from './domain/ports/store.js';
import type { BankAdapter } from './domain/ports/upstream.js';
import { VerificationService } from './domain/verify.js';
import { ImageDecodePool } from './images/decode-pool.js';
import { startInstanceLease, type InstanceLease } from './lease.js';
import { scheduleRetention, type RetentionSchedule } from './retention-schedule.js';
import { Metrics } from './metrics/metrics.js';
import { timedStore } from './metrics/timing.js';
import { openStore } from './store/open.js';
import { buildUpstream } from './upstream/build.js';
import { describeUpstreamConfig, loadUpstreamConfigs, type UpstreamConfig } from './upstream/config.js';
import { UpstreamPool } from './upstream/pool.js';
import { SandboxUpstream } from './upstream/sandbox/sandbox-upstream.js';

/** What works on a store alone: every operator command, and the admin side of a server. */
export interface StoreServices {
  store: Store;
  /** API key lookups, cached for API_KEY_CACHE_TTL_MS; admin changes here evict at once. */
  keys: KeyResolver;
  accounts: AccountService;
  /** Account changes plus the admin event trail (who, why). */
  admin: AdminActions;
  adminTokens: AdminTokenService;
}

export function storeServices(store: Store, opts: { keyCacheTtlMs?: number; logger?: Logger } = {}): StoreServices {
  const keys = new KeyResolver(store, opts.keyCacheTtlMs ?? 0);
  const accounts = new AccountService(store);
  const admin = new AdminActions({ store, accounts, keyCache: keys, ...(opts.logger ? { log: opts.logger } : {}) });
  return { store, keys, accounts, admin, adminTokens: new AdminTokenService(store, undefined, opts.logger) };
}

export interface ServerOptions {
  logger: Logger;
  /** Overrides the configured network (tests): a pool, or one adapter whose answers are checked like any bank's. */
  upstream?: BankAdapter | UpstreamPool;
}

/** Everything a serving process runs, before it listens. */
export interface ServerServices extends StoreServices {
  metrics: Metrics;
  /** The configured network (UPSTREAMS or the sandbox); reloaded on SIGHUP. */
  pool: UpstreamPool;
  /** What verifications ask: the pool, or the test's override. */
  upstream: UpstreamPool;
  /** Whether the network came from the options rather than the configuration. */
  upstreamOverridden: boolean;
  lease: InstanceLease;
  /** Removes personal data past RETENTION_DAYS, on one instance at a time. */
  retention: RetentionSchedule;
  /** Reads the slip QR of image bodies, off the event loop. */
  images: ImageDecodePool;
  verification: VerificationService;
  /** The configured domains as they are now (SIGHUP re-reads them). */
  upstreamConfigs(env: NodeJS.ProcessEnv): UpstreamConfig[];
}

export async function serverServices(config: Config, { logger, upstream: override }: ServerOptions): Promise<ServerServices> {
  const metrics = new Metrics();
  const upstreamConfigs = (env: NodeJS.ProcessEnv) => configuredNetwork(env, logger);
  // The bank configuration first: a mistake there stops the start before
  // anything is opened or registered.
  const pool = buildUpstream(upstreamConfigs(config.env), {
    logger,
    sandbox: (c) => new SandboxUpstream(c.name, config.SANDBOX_LATENCY_MS),
    onAttempt: (domain, outcome, latencyMs) => metrics.bankRequest(domain, outcome, latencyMs / 1000),
  });
  const upstream = override instanceof UpstreamPool ? override : override ? UpstreamPool.of(override, { logger }) : pool;
  if (config.HOLD_STALE_MS <= config.UPSTREAM_TIMEOUT_MS) {
    // Allowed (crash tests use it), but a live verification's hold can then be refunded under it.
    logger.warn({ HOLD_STALE_MS: config.HOLD_STALE_MS, UPSTREAM_TIMEOUT_MS: config.UPSTREAM_TIMEOUT_MS }, 'HOLD_STALE_MS should be longer than UPSTREAM_TIMEOUT_MS');
  }
  const undo: (() => Promise<void>)[] = [() => pool.close()];
  let store: Store;
  let lease: InstanceLease;
  try {
    store = timedStore(await openStore(config.DATABASE_URL), metrics);
    const opened = store;
    undo.unshift(() => opened.close());
    // Before any request is let in: every hold this process takes is covered by its lease.
    lease = await startInstanceLease(store, {
      heartbeatMs: config.LEASE_HEARTBEAT_MS,
      staleMs: config.HOLD_STALE_MS,
      logger,
      onRecovered: (r) => metrics.holdsRecovered(r.consumed, r.released),
    });
  } catch (err) {
    for (const step of undo) await step().catch(() => undefined);
    throw err;
  }
  const retention = scheduleRetention(store, { days: config.RETENTION_DAYS, intervalMs: config.RETENTION_INTERVAL_MINUTES * 60_000, lease, logger });
  // Threads start on the first image, so a server that never gets one pays nothing.
  const images = new ImageDecodePool({
    workers: config.IMAGE_WORKERS,
    queueMax: config.IMAGE_QUEUE_MAX,
    timeoutMs: config.IMAGE_DECODE_TIMEOUT_MS,
    maxPixels: config.IMAGE_MAX_PIXELS,
    logger,
  });
  const services = storeServices(store, { keyCacheTtlMs: config.API_KEY_CACHE_TTL_MS, logger });
  const verification = new VerificationService({
    images,
    store,
    upstream,
    keys: services.keys,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxInFlightPerAccount: config.MAX_INFLIGHT_PER_ACCOUNT,
    maxPicturesPerAccount: config.IMAGE_MAX_PER_ACCOUNT,
    logger,
    newId: () => newId('req'),
    instanceId: () => lease.instanceId(),
  });
  metrics.watch({
    upstreamHealth: () => pool.health(),
    listHolds: () => store.listHolds(),
    imageStats: () => images.stats,
    onReadError: (err) => logger.warn({ err }, 'metrics: reading the open credit holds failed'),
  });
  return { ...services, metrics, pool, upstream, upstreamOverridden: override !== undefined, lease, retention, images, verification, upstreamConfigs };
}

/** The configured bank domains, or the sandbox network when none are configured. */
function configuredNetwork(env: NodeJS.ProcessEnv, logger: Logger): UpstreamConfig[] {
  const configs = loadUpstreamConfigs(env);
  if (configs.length > 0) {
    logger.info({ upstreams: configs.map(describeUpstreamConfig) }, 'bank verification network configured');
    return configs;
  }
  logger.warn('SANDBOX MODE: no UPSTREAMS configured; slips are answered by the built-in sandbox network, not a bank');
  return [{ name: 'sandbox', provider: 'sandbox', weight: 1, enabled: true }];
}
