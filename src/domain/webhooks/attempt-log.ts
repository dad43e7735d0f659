// What the operator's log says of a failed webhook attempt: one warn line per
// attempt (the default level shows it), naming the endpoint, the event and
// how the attempt failed. Never the URL (its path or query may hold the
// merchant's own token), the signing secret or the body (event data).
import type { Logger } from '../ports/logger.js';
import type { DeliveryNext, WebhookAttempt, WebhookDelivery } from './types.js';

export function logFailedAttempt(logger: Logger, d: WebhookDelivery, attempt: WebhookAttempt, next: DeliveryNext): void {
  if (next.state === 'delivered') return;
  const fields = {
    endpointId: d.endpointId,
    eventType: d.type,
    eventId: d.eventId,
    deliveryId: d.id,
    accountId: d.accountId,
    attempt: d.attempts.length + 1,
    status: attempt.statusCode,
    // The recorded error: generic by design (staff see it beside the delivery); the exact cause of a failed connection is logged at debug.
    error: attempt.error,
  };
  if (next.state === 'pending') logger.warn(fields, 'webhook attempt failed; it will be tried again');
  else logger.warn(fields, 'webhook delivery failed for good (retry window over, or the endpoint was removed); redeliver it by hand once the endpoint works');
}
