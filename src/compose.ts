// The composition root: the one place that decides how each service is
// built. run() (main.ts), the CLI commands and the tests all get their
// services here (the store half in compose-store.ts); GraphQL and the CLI
// receive them and construct none.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { newId } from './domain/keys/api-key.js';
import type { LineBridge } from './domain/line/bridge.js';
import type { LineStaffNotifier } from './domain/line/staff-notifier.js';
import type { Store } from './domain/ports/store.js';
import type { BankAdapter } from './domain/ports/upstream.js';
import { VerificationService } from './domain/verify/service.js';
import { FailedAuthBrake } from './domain/keys/failed-auth-brake.js';
import { ImageDecodePool } from './images/decode-pool.js';
import { PictureBudget } from './http/picture-budget.js';
import { startInstanceLease, type InstanceLease } from './schedules/lease.js';
import { scheduleRetention, type RetentionSchedule } from './schedules/retention.js';
import { schedulePaymentExpiry, type PaymentExpirySchedule } from './schedules/payment-expiry.js';
import type { LineSummarySchedule } from './schedules/line-summary.js';
import { lineServerServices } from './compose-line.js';
import { storeServiceOptions, storeServices, type StoreServices } from './compose-store.js';
import { scheduleRechecks, type RecheckSchedule } from './schedules/rechecks.js';
import type { RecheckSettings } from './domain/rechecks/start.js';
import { Metrics } from './metrics/metrics.js';
import { scheduleQuotaReadings, type QuotaReadingsSchedule } from './schedules/quota-readings.js';
import { timedStore } from './metrics/timing.js';
import { openStore } from './store/open.js';
import { refuseNonAtomic } from './store/non-atomic.js';
import { buildUpstream } from './upstream/build.js';
import { describeUpstreamConfig, loadUpstreamConfigs, type UpstreamConfig } from './upstream/config.js';
import { UpstreamPool } from './upstream/pool.js';
import { SandboxUpstream } from './upstream/sandbox/sandbox-upstream.js';
import type { AdminListener } from './domain/webhooks/endpoint-url.js';
import { WebhookWorker } from './domain/webhooks/worker.js';
import { ThreadWebhookSender } from './webhooks/sender-thread.js';
import { packageVersion } from './version.js';

export interface ServerOptions {
  logger: Logger;
  /** Overrides the configured network (tests): a pool, or one adapter whose answers are checked like any bank's. */
  upstream?: BankAdapter | UpstreamPool;
  /** The admin listener as bound, when known (it overrides ADMIN_HOST/ADMIN_PORT for the webhook URL check). */
  adminListener?: AdminListener;
  /** Re-check timing (tests): the window instead of RECHECK_MINUTES, the backoff and how often passes run. */
  recheckTiming?: { windowMs?: number; firstDelayMs?: number; maxDelayMs?: number; pollMs?: number };
}

/** Everything a serving process runs, before it listens. */
export interface ServerServices extends StoreServices {
  metrics: Metrics;
  /** Bytes of picture bodies held at once (IMAGE_BYTES_IN_FLIGHT). */
  pictureBudget: PictureBudget;
  /** The configured network (UPSTREAMS or the sandbox); reloaded on SIGHUP. */
  pool: UpstreamPool;
  /** What verifications ask: the pool, or the test's override. */
  upstream: UpstreamPool;
  /** Whether the network came from the options rather than the configuration. */
  upstreamOverridden: boolean;
  lease: InstanceLease;
  /** Removes personal data past RETENTION_DAYS and finished webhook deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS, on one instance at a time. */
  retention: RetentionSchedule;
  /** Reads the slip QR of image bodies, off the event loop. */
  images: ImageDecodePool;
  verification: VerificationService;
  /** The configured domains as they are now (SIGHUP re-reads them). */
  upstreamConfigs(env: NodeJS.ProcessEnv): UpstreamConfig[];
  /** Delivers webhook events; started with the listeners, stopped before the store closes. */
  webhookWorker: WebhookWorker;
  /** The webhook worker's sending thread; closed once the worker has stopped. */
  webhookSender: ThreadWebhookSender;
  /** Marks pending payment requests past their expiry, on one instance at a time. */
  paymentExpiry: PaymentExpirySchedule;
  /** Asks the bank again about kept slips (domain/rechecks), on one instance at a time; stopped before the drain. */
  rechecks: RecheckSchedule;
  /** Slips sent in LINE chats of connected channels; drained before the store closes. */
  lineBridge: LineBridge;
  lineStaff: LineStaffNotifier;
  lineSummary: LineSummarySchedule;
  /** Each slip-API domain's quota call, at start and every UPSTREAM_QUOTA_POLL_MINUTES. */
  quotaReadings: QuotaReadingsSchedule;
}

export async function serverServices(config: Config, { logger, upstream: override, adminListener, recheckTiming: timing = {} }: ServerOptions): Promise<ServerServices> {
  const metrics = new Metrics();
  const upstreamConfigs = (env: NodeJS.ProcessEnv) => configuredNetwork(env, logger);
  // The bank configuration first: a mistake there stops the start before
  // anything is opened or registered.
  const pool = buildUpstream(upstreamConfigs(config.env), {
    logger,
    sandbox: (c) => new SandboxUpstream(c.name, config.SANDBOX_LATENCY_MS),
    exhaustedRetryMs: config.UPSTREAM_EXHAUSTED_RETRY_MINUTES * 60_000,
    quotaLow: config.UPSTREAM_QUOTA_LOW,
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
    const opened = await openStore(config.DATABASE_URL);
    undo.unshift(() => opened.close());
    // Before anything is charged: a server that would let credits be overdrawn serves only a test.
    const nonAtomic = await refuseNonAtomic(opened, config.MONGODB_ALLOW_NON_ATOMIC);
    if (nonAtomic) logger.warn({ server: nonAtomic, MONGODB_ALLOW_NON_ATOMIC: true }, 'the database does not make a guarded update atomic: credits can be overdrawn (allowed for a test)');
    store = timedStore(opened, metrics);
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
  const retention = scheduleRetention(store, {
    days: config.RETENTION_DAYS,
    webhookDeliveryDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    intervalMs: config.RETENTION_INTERVAL_MINUTES * 60_000,
    lease,
    logger,
  });
  // Threads start on the first image, so a server that never gets one pays nothing.
  const images = new ImageDecodePool({
    workers: config.IMAGE_WORKERS,
    queueMax: config.IMAGE_QUEUE_MAX,
    timeoutMs: config.IMAGE_DECODE_TIMEOUT_MS,
    maxPixels: config.IMAGE_MAX_PIXELS,
    logger,
  });
  const services = storeServices(store, { ...storeServiceOptions(config, logger), ...(adminListener ? { adminListener } : {}) });
  // Its thread starts on the first delivery, like the image threads.
  const webhookSender = new ThreadWebhookSender({
    userAgent: `slipgate-webhooks/${packageVersion()}`,
    guard: { adminPort: adminListener?.port ?? config.ADMIN_PORT, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
  });
  const webhookWorker = new WebhookWorker({
    store,
    sender: webhookSender,
    secrets: services.secrets,
    retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS, windowMs: config.WEBHOOK_RETRY_WINDOW_MS },
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    leaseMs: config.WEBHOOK_LEASE_MS,
    pollMs: config.WEBHOOK_POLL_MS,
    batch: config.WEBHOOK_CONCURRENCY,
    logger,
    onAttempt: (result) => metrics.webhookAttempt(result),
  });
  const rechecks: RecheckSettings = { windowMs: timing.windowMs ?? config.RECHECK_MINUTES * 60_000, maxPerAccount: config.RECHECK_MAX_PER_ACCOUNT, ...timing };
  const verification = new VerificationService({
    creditsLow: services.creditsLow,
    webhooks: {
      endpointsFor: (accountId, type) => services.subscriptions.endpointsFor(accountId, type),
      lease: () => webhookWorker.lease(),
      written: (deliveries) => webhookWorker.dispatch(deliveries),
    },
    images,
    store,
    upstream,
    keys: services.keys,
    receivers: services.receiverDirectory,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxInFlightPerAccount: config.MAX_INFLIGHT_PER_ACCOUNT,
    maxPicturesPerAccount: config.IMAGE_MAX_PER_ACCOUNT,
    logger,
    newId: () => newId('req'),
    instanceId: () => lease.instanceId(),
    authBrake: new FailedAuthBrake({ perWindow: config.AUTH_FAILURES_PER_IP_PER_MIN, windowMs: 60_000 }),
    rechecks,
  });
  const { lineStaff, lineSummary, lineBridge, lineRechecks } = lineServerServices({ config, store, secrets: services.secrets, creditsLow: services.creditsLow, upstream, lease, logger, metrics, verification, images });
  const recheckSchedule = scheduleRechecks(store, {
    followUp: lineRechecks,
    lease,
    logger,
    verification,
    settings: rechecks,
    endpointsFor: (accountId, type) => services.subscriptions.endpointsFor(accountId, type),
    newId: () => newId('req'),
    metrics: { attempt: (result) => metrics.recheckAttempt(result), finished: (outcome) => metrics.recheckFinished(outcome) },
    pending: (count) => metrics.rechecksPendingNow(count),
    written: () => webhookWorker.wake(),
    ...(timing.pollMs === undefined ? {} : { intervalMs: timing.pollMs }),
  });
  const paymentExpiry = schedulePaymentExpiry(store, {
    lease,
    logger,
    endpointsFor: (accountId) => services.subscriptions.endpointsFor(accountId, 'payment_request.expired'),
    written: () => webhookWorker.wake(),
  });
  const pictureBudget = new PictureBudget(config.IMAGE_BYTES_IN_FLIGHT);
  const quotaReadings = scheduleQuotaReadings(upstream, { intervalMs: config.UPSTREAM_QUOTA_POLL_MINUTES * 60_000, timeoutMs: config.UPSTREAM_TIMEOUT_MS });
  metrics.watch({
    upstreamHealth: () => pool.health(),
    listHolds: () => store.listHolds(),
    imageStats: () => ({ ...images.stats, waiting: pictureBudget.waiting }),
    onReadError: (err) => logger.warn({ err }, 'metrics: reading the open credit holds failed'),
  });
  return { ...services, metrics, pool, upstream, upstreamOverridden: override !== undefined, lease, retention, images, verification, upstreamConfigs, webhookWorker, webhookSender, lineBridge, lineStaff, lineSummary, paymentExpiry, rechecks: recheckSchedule, pictureBudget, quotaReadings };
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
