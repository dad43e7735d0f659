// The webhook events of payment requests, built by the writes that change
// their state (the store writes them in the same atomic write).
import { outboxRecords, type WebhookEvent } from '../webhooks/events.js';
import { newId } from '../api-key.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import type { PaymentRequest } from './types.js';
import { bahtOf } from './money.js';
import { bangkokIsoTime } from '../bangkok-time.js';

const at = (d: Date) => bangkokIsoTime(d.getTime());

export type PaymentEventType = 'payment_request.paid' | 'payment_request.expired';

/** What every view of a request says (the public answers and the events); times in Bangkok time (+07:00) like slips. */
export function paymentFacts(p: PaymentRequest) {
  return {
    id: p.id,
    reference: p.reference,
    amount: bahtOf(p.amount),
    ...(p.uniqueAmount ? { requestedAmount: bahtOf(p.requestedAmount) } : {}),
    status: p.status,
    receiver: p.receiverId,
    promptpay: p.promptpay,
    createdAt: at(p.createdAt),
    expiresAt: at(p.expiresAt),
    paidAt: p.paidAt && at(p.paidAt),
    paidBy: p.paidBy && {
      verificationId: p.paidBy.verificationId,
      transactionId: p.paidBy.transactionId,
      sendingBank: p.paidBy.sendingBank,
      amount: bahtOf(p.paidBy.amount),
      transferredAt: at(p.paidBy.transferredAt),
    },
  };
}

/**
 * What an event says of a request: the public view without `promptpay`. The
 * EMVCo payload carries the receiver's PromptPay target (a sole trader's
 * phone number or national ID); the merchant's own authenticated GET keeps
 * it, an event body (kept for redelivery, sent wherever the endpoint points)
 * does not. `receiver` (the receiver's id) says which one it was.
 */
function paymentEventFacts(p: PaymentRequest) {
  const { promptpay: _personal, ...facts } = paymentFacts(p);
  return facts;
}

/** The deliveries of one event about `p` for its listening endpoints (none: no event). */
export function paymentEvent(type: PaymentEventType, endpointIds: readonly string[], now: () => Date) {
  return (p: PaymentRequest): NewWebhookDelivery[] => {
    if (endpointIds.length === 0) return [];
    const event: WebhookEvent = { id: newId('evt'), type, createdAt: now(), data: paymentEventFacts(p) };
    return outboxRecords(event, p.accountId, endpointIds);
  };
}
