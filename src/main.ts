// The one place that wires slipgate together. `run()` starts both listeners
// and returns a handle tests can stop; the CLI's `serve` calls it.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { newId } from './domain/api-key.js';
import { VerificationService } from './domain/verify.js';
import type { Config } from './config.js';
import { createAdminApp } from './http/admin-app.js';
import { answerClientErrorsWithJson } from './http/client-errors.js';
import { defaultDashboardDir, mountDashboard } from './http/dashboard.js';
import { mountMetrics } from './http/metrics-route.js';
import { createPublicApp } from './http/public-app.js';
import { startInstanceLease } from './lease.js';
import { Metrics } from './metrics/metrics.js';
import { metricsText } from './metrics/serve.js';
import { timedStore } from './metrics/timing.js';
import { ImageDecodePool } from './images/decode-pool.js';
import { openStore } from './store/open.js';
import type { Store } from './domain/ports/store.js';
import { logStartupGuide } from './startup-guide.js';
import { buildUpstream } from './upstream/build.js';
import { describeUpstreamConfig, loadUpstreamConfigs, type UpstreamConfig } from './upstream/config.js';
import { UpstreamPool, type DomainHealth, type ReloadSummary } from './upstream/pool.js';
import { SandboxUpstream } from './upstream/sandbox/sandbox-upstream.js';
import type { BankAdapter } from './domain/ports/upstream.js';

export interface RunOptions {
  logger: Logger;
  /** Overrides the configured network (tests): a pool, or one adapter whose answers are checked like any bank's. */
  upstream?: BankAdapter | UpstreamPool;
}

export interface Running {
  publicUrl: string;
  adminUrl: string;
  store: Store;
  verification: VerificationService;
  /** Reads the slip QR of image bodies, off the event loop. */
  images: ImageDecodePool;
  /** Per-domain counters, latency and breaker state of the bank network. */
  upstreamHealth(): DomainHealth[];
  /** Re-reads UPSTREAMS / UPSTREAMS_FILE (SIGHUP); keeps the old set on error. */
  reloadUpstreams(): ReloadSummary | null;
  /** Graceful: stop accepting, finish in-flight verifications, close the store. */
  close(): Promise<void>;
}

export async function run(config: Config, { logger, ...opts }: RunOptions): Promise<Running> {
  // Imported here, not at the top, so CLI commands that never serve skip loading yoga and Pothos.
  const { mountGraphql } = await import('./graphql/server.js');
  const configs = upstreamConfigs(config, logger);
  const metrics = new Metrics();
  const store = timedStore(await openStore(config.DATABASE_URL), metrics);
  const pool = buildUpstream(configs, {
    logger,
    sandbox: (c) => new SandboxUpstream(c.name, config.SANDBOX_LATENCY_MS),
    onAttempt: (domain, outcome, latencyMs) => metrics.bankRequest(domain, outcome, latencyMs / 1000),
  });
  metrics.watch({
    upstreamHealth: () => pool.health(),
    listHolds: () => store.listHolds(),
    imageStats: () => images.stats,
    onReadError: (err) => logger.warn({ err }, 'metrics: reading the open credit holds failed'),
  });
  const override = opts.upstream;
  const upstream = override instanceof UpstreamPool ? override : override ? UpstreamPool.of(override, { logger }) : pool;
  if (config.HOLD_STALE_MS <= config.UPSTREAM_TIMEOUT_MS) {
    // Allowed (crash tests use it), but a live verification's hold can then be refunded under it.
    logger.warn({ HOLD_STALE_MS: config.HOLD_STALE_MS, UPSTREAM_TIMEOUT_MS: config.UPSTREAM_TIMEOUT_MS }, 'HOLD_STALE_MS should be longer than UPSTREAM_TIMEOUT_MS');
  }
  // Before listening: every hold this process takes is covered by its lease.
  const lease = await startInstanceLease(store, {
    heartbeatMs: config.LEASE_HEARTBEAT_MS,
    staleMs: config.HOLD_STALE_MS,
    logger,
    onRecovered: (r) => metrics.holdsRecovered(r.consumed, r.released),
  });
  // Threads start on the first image, so a server that never gets one pays nothing.
  const images = new ImageDecodePool({
    workers: config.IMAGE_WORKERS,
    queueMax: config.IMAGE_QUEUE_MAX,
    timeoutMs: config.IMAGE_DECODE_TIMEOUT_MS,
    maxPixels: config.IMAGE_MAX_PIXELS,
    logger,
  });
  const verification = new VerificationService({
    images,
    store,
    upstream,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    keyCacheTtlMs: config.API_KEY_CACHE_TTL_MS,
    maxInFlightPerAccount: config.MAX_INFLIGHT_PER_ACCOUNT,
    logger,
    newId: () => newId('req'),
    instanceId: () => lease.instanceId(),
  });

  const publicServer = await listen(
    createPublicApp({ verification, logger, maxBodyBytes: config.MAX_BODY_BYTES, maxImageBytes: config.MAX_IMAGE_BYTES, limits: config, metrics }),
    config.PORT,
    config.HOST,
  );
  // Slow or stalled clients (slowloris) must not hold sockets forever; the
  // clocks stop once the request is read, so the upstream wait is not cut.
  publicServer.requestTimeout = config.REQUEST_TIMEOUT_MS;
  publicServer.headersTimeout = Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS);
  answerClientErrorsWithJson(publicServer);
  // The internal GraphQL API lives on the admin listener only.
  const graphql = { store, keyCache: verification, upstreamHealth: () => pool.health(), logger };
  const dashboard = { dir: config.DASHBOARD_DIR ?? defaultDashboardDir(), logger };
  const scrape = metricsText(metrics);
  const adminApp = createAdminApp({
    store,
    logger,
    mount: (app) => {
      mountMetrics(app, { text: scrape.text, contentType: metrics.contentType, token: config.METRICS_TOKEN, logger });
      mountGraphql(app, graphql);
      mountDashboard(app, dashboard);
    },
  });
  const adminServer = await listen(adminApp, config.ADMIN_PORT, config.ADMIN_HOST);

  const publicUrl = urlOf(publicServer);
  const adminUrl = urlOf(adminServer);
  logger.info({ publicUrl, adminUrl, store: store.engine, upstream: upstream.name, instanceId: lease.instanceId() }, 'slipgate listening');
  logStartupGuide(logger, { publicUrl, adminUrl, adminHost: config.ADMIN_HOST, metricsToken: config.METRICS_TOKEN !== undefined });
  if ((await store.listAccounts({ limit: 1 })).items.length === 0) {
    logger.info('no accounts yet; create one with: npx slipgate accounts create --name "My shop" --credits 100');
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      logger.info({ inFlight: verification.inFlightCount }, 'shutting down');
      const stopped = Promise.all([stopServer(publicServer), stopServer(adminServer)]);
      await verification.drain();
      await images.close();
      await stopped;
      // Nothing is held under the lease any more: ending it tells the others at once.
      await lease.end().catch((err: unknown) => logger.error({ err }, 'ending the lease failed; it expires by itself'));
      scrape.stop();
      await pool.close();
      if (upstream !== pool) await upstream.close();
      await store.close();
      logger.info('stopped');
    })());
  const reloadUpstreams = () => (override ? null : pool.reload(upstreamConfigs({ ...config, env: process.env }, logger)));
  return { publicUrl, adminUrl, store, verification, images, upstreamHealth: () => pool.health(), reloadUpstreams, close };
}

/** The configured bank domains, or the sandbox network when none are configured. */
function upstreamConfigs(config: Config, logger: Logger): UpstreamConfig[] {
  const configs = loadUpstreamConfigs(config.env);
  if (configs.length > 0) {
    logger.info({ upstreams: configs.map(describeUpstreamConfig) }, 'bank verification network configured');
    return configs;
  }
  logger.warn('SANDBOX MODE: no UPSTREAMS configured; slips are answered by the built-in sandbox network, not a bank');
  return [{ name: 'sandbox', provider: 'sandbox', weight: 1, enabled: true }];
}

/** The kernel caps it at net.core.somaxconn (4096 on current Linux). */
const LISTEN_BACKLOG = 4096;

function listen(app: RequestListener, port: number, host: string): Promise<Server> {
  // Node checks the header/request timeouts on this interval (default 30 s).
  // No virtual hosts here, so a missing Host header is no reason for Node's
  // bodyless 400; the request gets a JSON answer like any other.
  const server = createServer({ connectionsCheckingInterval: 1_000, requireHostHeader: false }, app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Campaign bursts open thousands of connections at once; Node's default
    // backlog (511) drops the excess SYNs and clients retry seconds later.
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve(server));
  });
}

/** Stops accepting and lets in-flight requests finish; keep-alive sockets close as they go idle. */
function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function urlOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
