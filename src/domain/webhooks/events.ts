// The events slipgate sends and the outbox records they become. The body is
// fixed when the event happens: every attempt and every redelivery sends
// the same bytes, and the event id lets receivers drop a repeat.
import { newId } from '../keys/api-key.js';
import { bangkokIsoTime } from '../bangkok-time.js';
import type { VerifyTransactionRecord } from '../types.js';
import type { NewWebhookDelivery, WebhookEventType } from './types.js';

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** One record per subscribed endpoint, all with the same event id and body; times in Bangkok time (+07:00) like the rest of the API. */
export function outboxRecords(event: WebhookEvent, accountId: string, endpointIds: readonly string[]): NewWebhookDelivery[] {
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: bangkokIsoTime(event.createdAt.getTime()), data: event.data });
  return endpointIds.map((endpointId) => ({ id: newId('whd'), eventId: event.id, endpointId, accountId, type: event.type, body, createdAt: event.createdAt }));
}

/** The deliveries as written under `lease`, for the worker holding it to send (none: left for a claim). */
export function leased(deliveries: readonly NewWebhookDelivery[], lease: NewWebhookDelivery['lease']): readonly NewWebhookDelivery[] {
  return lease && deliveries.length > 0 ? deliveries.map((d) => ({ ...d, lease })) : deliveries;
}

/**
 * A verified, charged slip. Only what the books keep for good (retention
 * removes names and accounts from the records, domain/redaction.ts; a body
 * kept for redelivery must not outlive that): the merchant looks the rest
 * up by requestId in its own answer.
 */
export function verificationSucceeded(r: VerifyTransactionRecord): WebhookEvent {
  return {
    id: newId('evt'),
    type: 'verification.succeeded',
    createdAt: r.createdAt,
    data: {
      verificationId: r.id,
      requestId: r.requestId,
      transactionId: r.transactionId,
      amount: r.amount,
      sendingBank: r.sendingBank,
      receivingBank: r.receivingBank,
      source: r.source ?? 'qrcode',
      verifiedAt: bangkokIsoTime(r.createdAt.getTime()),
    },
  };
}
