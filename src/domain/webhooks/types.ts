// Signed webhooks: what an endpoint is, what one delivery of one event to it
// is, and what each attempt left. The event types are the one list below:
// adding one (payment_request.paid, …) is adding it here and producing it.

/** Every event type an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['verification.succeeded', 'payment_request.paid', 'payment_request.expired', 'payment_request.late_transfer', 'payment_request.slip_unconfirmed', 'verification.unconfirmed', 'account.credits_low'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  /** The event types it receives (at least one). */
  events: WebhookEventType[];
  /** The signing secret as stored (secret-box.ts): it must sign, so it is sealed, not hashed. Never shown again. */
  sealedSecret: string;
  createdAt: Date;
  removedAt: Date | null;
}

/** An endpoint as shown to people: everything but the secret. */
export type WebhookEndpointView = Omit<WebhookEndpoint, 'sealedSecret'>;

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  at: Date;
  /** The endpoint's HTTP status; null when none came (timeout, refused connection). */
  statusCode: number | null;
  /** Why the attempt failed; null for a 2xx. */
  error: string | null;
  durationMs: number;
}

/**
 * One event for one endpoint, as the state change that causes it writes it
 * (the outbox): in the same transaction, so neither exists without the other.
 */
export interface NewWebhookDelivery {
  id: string;
  /** The event's id (`evt_…`): the same in every delivery and attempt of the event, for receivers to dedupe. */
  eventId: string;
  endpointId: string;
  accountId: string;
  type: WebhookEventType;
  /** The exact JSON body POSTed and signed, fixed when the event happened. */
  body: string;
  createdAt: Date;
  /**
   * Written already claimed by the process that wrote it, whose worker sends
   * it at once (WebhookWorker.dispatch): no claim statement, no poll. If
   * that process dies first, the delivery is claimed like any other once
   * the lease ends. Absent: written unclaimed, for the next claim.
   */
  lease?: { claim: string; until: Date };
}

export interface WebhookDelivery extends NewWebhookDelivery {
  state: WebhookDeliveryState;
  /** When a pending delivery is due. */
  nextAttemptAt: Date;
  /** Oldest first. */
  attempts: WebhookAttempt[];
  deliveredAt: Date | null;
}

/** What the worker decided after an attempt. */
export type DeliveryNext = { state: 'delivered' } | { state: 'pending'; nextAttemptAt: Date } | { state: 'failed' };

export interface DeliveryQuery {
  accountId?: string;
  endpointId?: string;
  limit: number;
  after?: string | null;
}
