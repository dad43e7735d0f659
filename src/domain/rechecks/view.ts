// What people and events are told about a slip being re-checked: its bank,
// its reference masked (a transfer's reference is the customer's receipt,
// shown in full to no one but the bank), and since when it is being checked.
import { bangkokIsoTime } from '../bangkok-time.js';
import { newId } from '../api-key.js';
import { outboxRecords } from '../webhooks/events.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import { paymentEventFacts } from '../payments/events.js';
import type { PaymentRequest } from '../payments/types.js';
import type { Recheck } from './types.js';

/** The reference's last 4 characters, the rest as `*`. */
export function maskedRef(transRef: string): string {
  return transRef.length <= 4 ? '*'.repeat(transRef.length) : `${'*'.repeat(transRef.length - 4)}${transRef.slice(-4)}`;
}

/** The slip being checked, as GET, GraphQL and the events show it. */
export function slipBeingChecked(r: Recheck) {
  return {
    verificationId: r.id,
    sendingBank: r.sendingBank,
    transRef: maskedRef(r.transRef),
    since: bangkokIsoTime(r.createdAt.getTime()),
    deadline: bangkokIsoTime(r.deadline.getTime()),
  };
}

/**
 * `payment_request.slip_unconfirmed`: the slip sent for the request was not
 * confirmed by its bank before the deadline (or the account had no credit
 * when it was): nothing was charged, and the request is open for another
 * slip (pending, unless it expired meanwhile).
 */
export function slipUnconfirmedEvent(endpointIds: readonly string[], now: Date) {
  return (p: PaymentRequest, r: Recheck, reason: 'not_confirmed' | 'no_credit'): NewWebhookDelivery[] => {
    if (endpointIds.length === 0) return [];
    const data = { ...paymentEventFacts(p), slip: slipBeingChecked(r), reason };
    return outboxRecords({ id: newId('evt'), type: 'payment_request.slip_unconfirmed', createdAt: now, data }, p.accountId, endpointIds);
  };
}
