// What people and events are told about a slip being re-checked: its bank,
// its reference masked (a transfer's reference is the customer's receipt,
// shown in full to no one but the bank), and since when it is being checked.
import { bangkokIsoTime } from '../bangkok-time.js';
import { newId } from '../keys/api-key.js';
import { outboxRecords } from '../webhooks/events.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import { paymentEventFacts, paymentFacts } from '../payments/events.js';
import type { PaymentRequest } from '../payments/types.js';
import type { Recheck } from './types.js';
import type { Store } from '../ports/store.js';

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

/**
 * `verification.unconfirmed`: a slip sent with `"recheck": true` was not
 * confirmed by its bank before the deadline (or the account had no credit
 * when it was): nothing was charged.
 */
export function verificationUnconfirmedEvent(endpointIds: readonly string[], now: Date) {
  return (r: Recheck, reason: 'not_confirmed' | 'no_credit'): NewWebhookDelivery[] => {
    if (endpointIds.length === 0) return [];
    const data = { ...slipBeingChecked(r), requestId: r.requestId, reason };
    return outboxRecords({ id: newId('evt'), type: 'verification.unconfirmed', createdAt: now, data }, r.accountId, endpointIds);
  };
}

/** A request's public view, with `verifying` and the slip being checked while one is. */
export type ShownPaymentRequest = Omit<ReturnType<typeof paymentFacts>, 'status'> & { status: PaymentRequest['status'] | 'verifying'; verifying?: ReturnType<typeof slipBeingChecked> };

/**
 * A payment request as shown while a slip sent for it is being re-checked:
 * `verifying` (stored, it stays `pending`: an expiry or a cancel still
 * applies) with the newest slip being checked. An expired request keeps its
 * status but shows the slip too (an in-time transfer found later pays it).
 */
export async function shownPaymentRequest(store: Store, request: PaymentRequest): Promise<ShownPaymentRequest> {
  const facts = paymentFacts(request);
  if (request.status !== 'pending' && request.status !== 'expired') return facts;
  const [open] = await store.openRechecks({ accountId: request.accountId, paymentRequestId: request.id, limit: 1 });
  if (!open) return facts;
  return { ...facts, status: request.status === 'pending' ? 'verifying' : request.status, verifying: slipBeingChecked(open) };
}

/**
 * GET /api/v1/verifications/{id}: a slip kept for re-checks, as its caller
 * reads it. `success` carries what a success answer carries (the slip, the
 * checks asked for, the payment verdict) and `recordId`, the id of the
 * charged verification's record; a re-check finished by a crash recovery
 * knows that id alone.
 */
export function verificationView(r: Recheck): Record<string, unknown> {
  const slip = slipBeingChecked(r);
  const request = r.paymentRequestId ? { paymentRequestId: r.paymentRequestId } : {};
  switch (r.outcome) {
    case null:
      return { status: 'pending', ...slip, ...request };
    case 'verified': {
      const { verificationId: recordId, ...answer } = JSON.parse(r.result ?? '{}') as Record<string, unknown>;
      return { status: 'success', verificationId: r.id, recordId, ...answer, ...(r.paymentRequestId && !answer.paymentRequest ? request : {}) };
    }
    case 'unconfirmed':
    case 'no_credit':
      return { status: 'unconfirmed', ...slip, ...request, reason: r.outcome === 'no_credit' ? 'no_credit' : 'not_confirmed', finishedAt: bangkokIsoTime(r.finishedAt!.getTime()) };
    default:
      // superseded (another slip paid its request first) or refused (the receiver policy): neither charged.
      return { status: r.outcome, ...slip, ...request, finishedAt: bangkokIsoTime(r.finishedAt!.getTime()) };
  }
}
