// A serving slipgate: both listeners on top of the services the
// composition root (compose.ts) builds. `run()` returns a handle tests can
// stop; the CLI's `serve` calls it.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import type { Config } from './config.js';
import { saveMadeSecretsKey } from './files/made-secrets-key.js';
import { serverServices, type ServerOptions, type ServerServices } from './compose.js';
import { createAdminApp } from './http/admin-app.js';
import { answerClientErrorsWithJson } from './http/client-errors.js';
import { mountAuditExport } from './http/audit-export-route.js';
import { defaultDashboardDir, mountDashboard } from './http/dashboard.js';
import { mountMetrics } from './http/metrics-route.js';
import { createPublicApp } from './http/public-app.js';
import { instanceProof } from './domain/admin/instance-proof.js';
import { checkoutBaseUrl, checkoutLinksMissing } from './http/checkout/base-url.js';
import { checkoutLinks } from './domain/payments/checkout-link.js';
import { Tarpit } from './http/tarpit.js';
import { metricsText } from './metrics/serve.js';
import { ListenError } from './http/listen-error.js';
import { cliCommand, logStartupGuide } from './cli/startup-guide.js';
import type { DomainHealth, ReloadSummary } from './upstream/pool.js';

export type RunOptions = ServerOptions;

export interface Running extends Pick<ServerServices, 'pictureBudget' | 'store' | 'keys' | 'accounts' | 'admin' | 'adminTokens' | 'verification' | 'images' | 'retention' | 'webhooks' | 'webhookWorker' | 'lineChannels' | 'paymentExpiry' | 'payments' | 'rechecks'> {
  publicUrl: string;
  adminUrl: string;
  /** Per-domain counters, latency and breaker state of the bank network. */
  upstreamHealth(): DomainHealth[];
  /** Re-reads UPSTREAMS / UPSTREAMS_FILE (SIGHUP); keeps the old set on error. */
  reloadUpstreams(): ReloadSummary | null;
  /** Graceful: stop accepting, finish in-flight verifications, close the store. */
  close(): Promise<void>;
  /**
   * Resolves if the store fails for good (Store.failed: a failed fsync).
   * The process cannot heal itself; `serve` then closes and exits with
   * EXIT_STORE_FAILED (cli/exit-codes.ts), so its supervisor restarts it
   * and the start recovers.
   */
  storeFailed: Promise<Error> | null;
}

export async function run(config: Config, opts: RunOptions): Promise<Running> {
  const { logger } = opts;
  // Imported here, not at the top, so CLI commands that never serve skip loading yoga and Pothos.
  const { mountGraphql } = await import('./graphql/server.js');
  // The ports first: a port in use must stop the start before the store is
  // opened, migrated or a lease registered. Requests that arrive meanwhile
  // wait at the gate until the services behind it are ready.
  const publicGate = new Gate();
  const adminGate = new Gate();
  const publicServer = await listen(publicGate.listener, { port: config.PORT, host: config.HOST, portSetting: 'PORT', hostSetting: 'HOST' });
  let adminServer: Server;
  try {
    adminServer = await listen(adminGate.listener, { port: config.ADMIN_PORT, host: config.ADMIN_HOST, portSetting: 'ADMIN_PORT', hostSetting: 'ADMIN_HOST' });
  } catch (err) {
    await stopServer(publicServer);
    throw err;
  }
  let services: ServerServices;
  try {
    // The admin listener as bound (ADMIN_PORT=0 picks one): no webhook may point at it.
    const { address, port } = adminServer.address() as AddressInfo;
    services = await serverServices(config, { ...opts, adminListener: { host: address, port } });
  } catch (err) {
    publicGate.fail();
    adminGate.fail();
    await Promise.all([stopServer(publicServer), stopServer(adminServer)]);
    throw err;
  }
  const { store, metrics, pool, upstream, lease, retention, images, verification, paymentExpiry, payments } = services;

  // Slow or stalled clients (slowloris) must not hold sockets forever; the
  // clocks stop once the request is read, so the upstream wait is not cut.
  publicServer.requestTimeout = config.REQUEST_TIMEOUT_MS;
  publicServer.headersTimeout = Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS);
  answerClientErrorsWithJson(publicServer);
  const tarpit = new Tarpit(config.AUTH_BRAKE_DELAY_MS);
  const checkoutBase = checkoutBaseUrl(config, urlOf(publicServer));
  const checkoutMissing = checkoutLinksMissing(checkoutBase, config.SECRETS_KEY);
  const checkout = checkoutLinks({ publicUrl: checkoutBase, secretsKey: config.SECRETS_KEY });
  publicGate.open(
    createPublicApp({
      verification,
      logger,
      maxBodyBytes: config.MAX_BODY_BYTES,
      maxImageBytes: config.MAX_IMAGE_BYTES,
      pictureBudget: services.pictureBudget,
      limits: config,
      metrics,
      payments: { service: payments, store, checkoutUrl: (id) => checkout.url(id), checkoutUrlMissing: checkoutMissing },
      checkout: { links: checkout, store, verification, maxImageBytes: config.MAX_IMAGE_BYTES, maxChecks: config.CHECKOUT_MAX_CHECKS, uploadsPerAddressPerMinute: config.CHECKOUT_UPLOADS_PER_IP_PER_MIN, pictureBudget: services.pictureBudget },
      line: services.lineBridge,
      tarpit,
      instanceProof: (challenge) => (config.SECRETS_KEY ? instanceProof(config.SECRETS_KEY, challenge) : null),
    }),
  );
  // The internal GraphQL API lives on the admin listener only.
  const dashboard = { dir: config.DASHBOARD_DIR ?? defaultDashboardDir(), logger };
  const scrape = metricsText(metrics);
  const adminApp = createAdminApp({
    store,
    logger,
    mount: (app) => {
      mountMetrics(app, { text: scrape.text, contentType: metrics.contentType, token: config.METRICS_TOKEN, logger });
      mountGraphql(app, { ...services, payments: { service: payments, checkoutUrl: (id) => checkout.url(id) }, upstreamHealth: () => pool.health(), logger });
      mountAuditExport(app, { store, adminTokens: services.adminTokens, logger });
      mountDashboard(app, dashboard);
    },
  });
  adminGate.open(adminApp);
  services.webhookWorker.start();

  const publicUrl = urlOf(publicServer);
  const adminUrl = urlOf(adminServer);
  // The heap limit the process got (bin/sized-node sizes it to the machine): what an operator checks first when memory surprises them.
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
  // A key the first start made is written now that the start succeeded (the store made its folder): a failed start leaves nothing.
  saveMadeSecretsKey(config);
  logger.info({ publicUrl, adminUrl, store: store.engine, upstream: upstream.name, instanceId: lease.instanceId(), heapLimitMb }, 'slipgate listening');
  logStartupGuide(logger, {
    publicUrl,
    adminUrl,
    adminHost: config.ADMIN_HOST,
    metricsToken: config.METRICS_TOKEN !== undefined,
    checkout: { base: checkoutBase, missing: checkoutMissing, localDefault: !config.PUBLIC_URL },
  });
  // A hint only: a store that fails here must not fail a start that already registered its lease.
  const firstAccounts = await store.listAccounts({ limit: 1 }).catch(() => null);
  if (firstAccounts?.items.length === 0) {
    logger.info(`no accounts yet; create one with: ${cliCommand()} accounts create --name "My shop" --credits 100`);
  }

  const storeFailed =
    store.failed?.then((err) => {
      // Not ready from here on (/readyz pings the store), and every request answers 503/500.
      logger.fatal({ err, inFlight: verification.inFlightCount }, 'STORE FAILED: a write to the database may not have reached the disk; nothing more is acknowledged; restart needed to recover');
      return err;
    }) ?? null;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      logger.info({ inFlight: verification.inFlightCount }, 'shutting down');
      const stopped = Promise.all([stopServer(publicServer), stopServer(adminServer)]);
      // Held 429s go now: a braked client must not keep the listener from closing.
      tarpit.release();
      // Re-checks first: a pass under way finishes its attempts (their verifications join the drain below).
      await services.rechecks.stop();
      // LINE events first: their verifications join the drain below.
      await services.lineBridge.drain();
      await verification.drain();
      // The staff notes of those events, waiting for their batch: sent now rather than lost.
      await services.lineStaff.drain();
      // After the drain: the last settles' events are written; attempts under way are recorded.
      await services.webhookWorker.stop();
      await services.webhookSender.close();
      await images.close();
      await stopped;
      await retention.stop();
      await paymentExpiry.stop();
      await services.lineSummary.stop();
      await services.quotaReadings.stop();
      // Nothing is held under the lease any more: ending it tells the others at once.
      await lease.end().catch((err: unknown) => logger.error({ err }, 'ending the lease failed; it expires by itself'));
      scrape.stop();
      await pool.close();
      if (upstream !== pool) await upstream.close();
      await store.close();
      logger.info('stopped');
    })());
  const reloadUpstreams = () => (services.upstreamOverridden ? null : pool.reload(services.upstreamConfigs(process.env)));
  const { keys, accounts, admin, adminTokens, webhooks, webhookWorker, lineChannels } = services;
  return { publicUrl, adminUrl, store, keys, accounts, admin, adminTokens, verification, images, retention, webhooks, webhookWorker, lineChannels, paymentExpiry, payments, rechecks: services.rechecks, pictureBudget: services.pictureBudget, upstreamHealth: () => pool.health(), reloadUpstreams, close, storeFailed };
}

/** Holds requests that arrive while the services start; `open` lets them through, `fail` drops them. */
class Gate {
  private app: RequestListener | undefined;
  private waiting: [IncomingMessage, ServerResponse][] = [];

  readonly listener: RequestListener = (req, res) => {
    if (this.app) this.app(req, res);
    else this.waiting.push([req, res]);
  };

  open(app: RequestListener): void {
    this.app = app;
    for (const [req, res] of this.waiting.splice(0)) app(req, res);
  }

  fail(): void {
    for (const [, res] of this.waiting.splice(0)) res.destroy();
  }
}

/** The kernel caps it at net.core.somaxconn (4096 on current Linux). */
const LISTEN_BACKLOG = 4096;

function listen(app: RequestListener, address: ListenError['address']): Promise<Server> {
  const { port, host } = address;
  // Node checks the header/request timeouts on this interval (default 30 s).
  // No virtual hosts here, so a missing Host header is no reason for Node's
  // bodyless 400; the request gets a JSON answer like any other.
  const server = createServer({ connectionsCheckingInterval: 1_000, requireHostHeader: false }, app);
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new ListenError(err.code ?? 'error', address, err)));
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
