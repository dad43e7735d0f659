// The LINE half of the server's wiring (compose.ts): the Messaging API
// client, the staff notifier (which account.credits_low and a slip API's low
// quota tell too), the daily summary, the bridge that answers slips sent in
// chats, and what re-checks push to a chat whose slip the bank did not know
// yet (docs/line.md).
import type { Config } from './config.js';
import { lineApiSettings } from './compose-store.js';
import type { CreditsLowWatch } from './domain/accounts/credits-low.js';
import { LineBridge } from './domain/line/bridge.js';
import { creditsLowToStaff } from './domain/line/credits-low-note.js';
import { PendingRequestMatcher } from './domain/line/payment-match.js';
import { quotaLowToStaff } from './domain/line/quota-low-note.js';
import { LineRecheckChat } from './domain/line/recheck-chat.js';
import { LineStaffNotifier } from './domain/line/staff-notifier.js';
import { LineUserLimit } from './domain/line/user-limit.js';
import type { LineApi } from './domain/ports/line-api.js';
import type { Logger } from 'pino';
import type { Store } from './domain/ports/store.js';
import type { SecretBox } from './domain/secret-box.js';
import type { VerificationService } from './domain/verify/service.js';
import type { ImageDecodePool } from './images/decode-pool.js';
import type { InstanceLease } from './schedules/lease.js';
import { lineHttpApi } from './line/line-http-api.js';
import { scheduleLineSummary } from './schedules/line-summary.js';
import type { Metrics } from './metrics/metrics.js';
import type { UpstreamPool } from './upstream/pool.js';

/** LINE's Messaging API at the configured base URLs (the simulator's in tests and demos). */
function lineApiOf(config: Config): LineApi {
  return lineHttpApi(lineApiSettings(config));
}

interface LineWiring {
  config: Config;
  store: Store;
  secrets: SecretBox;
  creditsLow: CreditsLowWatch;
  /** The verification networks: a slip API's quota falling low is told to the staff. */
  upstream: Pick<UpstreamPool, 'whenQuotaLow'>;
  lease: InstanceLease;
  logger: Logger;
  metrics: Metrics;
  verification: VerificationService;
  images: ImageDecodePool;
}

export function lineServerServices({ config, store, secrets, creditsLow, upstream, lease, logger, metrics, verification, images }: LineWiring) {
  const api = lineApiOf(config);
  const lineStaff = new LineStaffNotifier({ store, secrets, api, logger, batchMs: config.LINE_STAFF_BATCH_MS });
  creditsLow.onFall(creditsLowToStaff(store, lineStaff, logger));
  upstream.whenQuotaLow(quotaLowToStaff(store, lineStaff, logger));
  const lineSummary = scheduleLineSummary(store, { lease, logger, secrets, api, at: config.LINE_SUMMARY_AT === 'off' ? null : config.LINE_SUMMARY_AT });
  const paymentRequests = new PendingRequestMatcher(store);
  const lineRechecks = new LineRecheckChat({ store, secrets, api, staff: lineStaff, paymentRequests, logger });
  const lineBridge = new LineBridge({
    store,
    secrets,
    api,
    staff: lineStaff,
    verification,
    pictures: { decoder: images, slots: verification.pictureSlots },
    maxImageBytes: config.MAX_IMAGE_BYTES,
    userLimit: new LineUserLimit(config.LINE_EVENTS_PER_USER_PER_MIN),
    logger,
    onEvent: (outcome) => metrics.lineEvent(outcome),
    paymentRequests,
  });
  return { lineStaff, lineSummary, lineBridge, lineRechecks };
}
