// The webhook events of payment requests, built by the writes that change
// their state (the store writes them in the same atomic write).
import { createHash } from 'node:crypto';
import { outboxRecords, type WebhookEvent } from '../webhooks/events.js';
import { newId } from '../keys/api-key.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import type { PayingSlip, PaymentRequest } from './types.js';
import { bahtOf } from './money.js';
import { bangkokIsoTime } from '../bangkok-time.js';

const at = (d: Date) => bangkokIsoTime(d.getTime());

export type PaymentEventType = 'payment_request.paid' | 'payment_request.expired' | 'payment_request.late_transfer';

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
    paidBy: p.paidBy && slipFacts(p.paidBy),
  };
}

const slipFacts = (s: PayingSlip) => ({
  verificationId: s.verificationId,
  transactionId: s.transactionId,
  sendingBank: s.sendingBank,
  amount: bahtOf(s.amount),
  transferredAt: at(s.transferredAt),
});

/**
 * What an event says of a request: the public view without `promptpay`. The
 * EMVCo payload carries the receiver's PromptPay target (a sole trader's
 * phone number or national ID); the merchant's own authenticated GET keeps
 * it, an event body (kept for redelivery, sent wherever the endpoint points)
 * does not. `receiver` (the receiver's id) says which one it was.
 */
export function paymentEventFacts(p: PaymentRequest) {
  const { promptpay: _personal, ...facts } = paymentFacts(p);
  return facts;
}

/** The deliveries of one event about `p` for its listening endpoints (none: no event); `extra` adds to its data (a staff resolution's `resolvedBy`). */
export function paymentEvent(type: PaymentEventType, endpointIds: readonly string[], now: () => Date, extra: Record<string, unknown> = {}) {
  return (p: PaymentRequest): NewWebhookDelivery[] => {
    if (endpointIds.length === 0) return [];
    const event: WebhookEvent = { id: newId('evt'), type, createdAt: now(), data: { ...paymentEventFacts(p), ...extra } };
    return outboxRecords(event, p.accountId, endpointIds);
  };
}

/**
 * The deliveries of `payment_request.late_transfer`: a slip for the
 * request's receiver and amount, transferred after it expired (refused
 * `expired`), so the shop can refund or honour it. The event id is the
 * transfer's (request, sending bank, transaction reference): the same slip
 * verified again is the same event, which receivers drop as a repeat.
 */
export function lateTransferEvent(endpointIds: readonly string[], now: () => Date) {
  return (p: PaymentRequest, slip: PayingSlip): NewWebhookDelivery[] => {
    if (endpointIds.length === 0) return [];
    const transfer = createHash('sha256').update(JSON.stringify([p.id, slip.sendingBank, slip.transactionId])).digest('hex').slice(0, 32);
    const event: WebhookEvent = { id: `evt_${transfer}`, type: 'payment_request.late_transfer', createdAt: now(), data: { ...paymentEventFacts(p), transfer: slipFacts(slip) } };
    return outboxRecords(event, p.accountId, endpointIds);
  };
}
