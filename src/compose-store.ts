// The store half of the composition root (compose.ts): the services that
// work on a store alone, which every operator command and the admin side of
// a server use. It loads no HTTP client, metrics or image library, so a
// command line starts fast; LINE's client is loaded on the first push.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { AccountService } from './domain/accounts/operations.js';
import { CreditsLowWatch } from './domain/accounts/credits-low.js';
import { AdminActions } from './domain/admin/actions.js';
import { AdminTokenService } from './domain/admin/tokens.js';
import { KeyResolver } from './domain/keys/lookup.js';
import { LineChannels } from './domain/line/channels.js';
import { PaymentResolutions } from './domain/payments/resolve.js';
import { lineCustomerNotice } from './domain/payments/resolve-notice.js';
import { PaymentRequestService } from './domain/payments/service.js';
import type { LineApi } from './domain/ports/line-api.js';
import type { Store } from './domain/ports/store.js';
import { ReceiverDirectory } from './domain/receivers/directory.js';
import { ReceiverService } from './domain/receivers/operations.js';
import { secretBox, type SecretBox } from './domain/secret-box.js';
import type { AdminListener } from './domain/webhooks/endpoint-url.js';
import { WebhookEndpoints } from './domain/webhooks/endpoints.js';
import { WebhookSubscriptions } from './domain/webhooks/subscriptions.js';
import type { LineHttpApiOptions } from './line/line-http-api.js';
import { packageVersion } from './version.js';

/** What works on a store alone: every operator command, and the admin side of a server. */
export interface StoreServices {
  store: Store;
  /** API key lookups, cached for API_KEY_CACHE_TTL_MS; admin changes here evict at once. */
  keys: KeyResolver;
  accounts: AccountService;
  /** Each account's receiver policy and active receivers, cached like keys; admin changes here evict at once. */
  receiverDirectory: ReceiverDirectory;
  /** Account changes plus the admin event trail (who, why). */
  admin: AdminActions;
  adminTokens: AdminTokenService;
  /** Which endpoints of an account listen to which events, cached like keys. */
  subscriptions: WebhookSubscriptions;
  /** Webhook endpoints and redeliveries, with the admin event trail. */
  webhooks: WebhookEndpoints;
  /** Seals and opens webhook signing secrets and LINE channel secrets (SECRETS_KEY). */
  secrets: SecretBox;
  /** Payment requests of merchant accounts (docs/payments.md). */
  payments: PaymentRequestService;
  /** LINE channels connected to accounts, with the admin event trail. */
  lineChannels: LineChannels;
  /** Staff attaching a verified slip to the payment request it paid, with the admin event trail. */
  resolutions: PaymentResolutions;
  /** account.credits_low: the per-account threshold cache and the announce-once write. */
  creditsLow: CreditsLowWatch;
}

export interface StoreServiceOptions {
  keyCacheTtlMs?: number;
  logger?: Logger;
  /** SECRETS_KEY, which seals webhook signing secrets. */
  secretsKey?: Buffer | null;
  /** Slipgate's own admin listener: no webhook endpoint may point at it. */
  adminListener?: AdminListener | null;
  /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may point at loopback and private networks (default: refused). */
  allowPrivateWebhooks?: boolean;
  /** LINE's Messaging API: a staff resolution of a slip sent in a chat is pushed to its customer; absent: not. */
  lineApi?: Pick<LineApi, 'push'>;
}

export function storeServices(store: Store, opts: StoreServiceOptions = {}): StoreServices {
  const keys = new KeyResolver(store, opts.keyCacheTtlMs ?? 0);
  const receiverDirectory = new ReceiverDirectory(store, opts.keyCacheTtlMs ?? 0);
  const accounts = new AccountService(store);
  const receivers = new ReceiverService(store);
  const log = opts.logger ? { log: opts.logger } : {};
  const subscriptions = new WebhookSubscriptions(store, opts.keyCacheTtlMs ?? 0);
  const creditsLow = new CreditsLowWatch({
    store,
    ttlMs: opts.keyCacheTtlMs ?? 0,
    endpointsFor: (accountId) => subscriptions.endpointsFor(accountId, 'account.credits_low'),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const admin = new AdminActions({ store, accounts, receivers, keyCache: keys, receiverCache: receiverDirectory, creditsLow, ...log });
  const secrets = secretBox(opts.secretsKey ?? null);
  const webhooks = new WebhookEndpoints({ store, secrets, adminListener: opts.adminListener ?? null, allowPrivate: opts.allowPrivateWebhooks ?? false, forgetAccount: (id) => subscriptions.forget(id), ...log });
  const payments = new PaymentRequestService(store);
  const lineChannels = new LineChannels({ store, secrets, ...log });
  const tellCustomer = opts.lineApi ? { tellCustomer: lineCustomerNotice({ store, secrets, api: opts.lineApi, ...(opts.logger ? { logger: opts.logger } : {}) }) } : {};
  const resolutions = new PaymentResolutions({ store, endpointsFor: (accountId) => subscriptions.endpointsFor(accountId, 'payment_request.paid'), ...tellCustomer, ...log });
  return { store, keys, receiverDirectory, accounts, admin, adminTokens: new AdminTokenService(store, undefined, opts.logger), subscriptions, webhooks, secrets, lineChannels, payments, resolutions, creditsLow };
}

/** What the store services need from the configuration. */
export function storeServiceOptions(config: Config, logger: Logger): StoreServiceOptions {
  return {
    keyCacheTtlMs: config.API_KEY_CACHE_TTL_MS,
    logger,
    secretsKey: config.SECRETS_KEY ?? null,
    adminListener: { host: config.ADMIN_HOST, port: config.ADMIN_PORT },
    allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE,
    lineApi: linePushOnDemand(config),
  };
}

/** LINE's Messaging API settings from the configuration (the simulator's base URLs in tests and demos). */
export function lineApiSettings(config: Config): LineHttpApiOptions {
  return {
    apiBaseUrl: config.LINE_API_BASE_URL,
    dataApiBaseUrl: config.LINE_DATA_API_BASE_URL,
    timeoutMs: config.LINE_API_TIMEOUT_MS,
    userAgent: `slipgate/${packageVersion()}`,
  };
}

/** LINE's push, its HTTP client loaded on the first push (most commands push nothing). */
function linePushOnDemand(config: Config): Pick<LineApi, 'push'> {
  let api: Promise<LineApi> | undefined;
  return {
    async push(accessToken, to, text) {
      api ??= import('./line/line-http-api.js').then((m) => m.lineHttpApi(lineApiSettings(config)));
      return (await api).push(accessToken, to, text);
    },
  };
}
