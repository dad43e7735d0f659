// Storage port: webhook endpoints and their deliveries (domain/webhooks).
import type { DeliveryNext, DeliveryQuery, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../webhooks/types.js';
import type { Page } from './store-page.js';

// Webhooks (domain/webhooks). Deliveries are written by the state change
// that causes them (settleHold) and worked off by the delivery worker.
export interface WebhookStore {
  /**
   * Whether a delivery given to settleHold with a `lease` is written
   * claimed under it, so the writing process can send it without a claim.
   * MongoDB's outbox rides in the verification's document until a claim
   * moves it (mongo/webhooks.ts): there the lease is not written, and the
   * worker does not dispatch.
   */
  readonly leasesOutbox: boolean;
  createWebhookEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  /** Removed endpoints too (removedAt set). */
  getWebhookEndpoint(id: string): Promise<WebhookEndpoint | null>;
  /** The account's endpoints not removed, oldest first. */
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** False for an unknown or already removed endpoint. */
  removeWebhookEndpoint(id: string, at: Date): Promise<boolean>;
  /**
   * Takes up to `limit` pending deliveries due at `now` that no live claim
   * holds, and holds them under `claim` until `now + leaseMs`: two callers
   * never get the same delivery while its lease lasts. Oldest due first.
   */
  claimWebhookDeliveries(q: { claim: string; now: Date; leaseMs: number; limit: number }): Promise<WebhookDelivery[]>;
  /**
   * Records an attempt and what follows, iff the delivery is still held
   * under `claim` (a lease that ran out may have been claimed again).
   */
  finishWebhookAttempt(id: string, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<boolean>;
  getWebhookDelivery(id: string): Promise<WebhookDelivery | null>;
  /** Newest first. */
  listWebhookDeliveries(q: DeliveryQuery): Promise<Page<WebhookDelivery>>;
  /** Makes the delivery pending and due at `now`, whatever its state; false for an unknown id. */
  redeliverWebhook(id: string, now: Date): Promise<boolean>;
}
