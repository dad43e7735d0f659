// Payment requests of a merchant account (docs/payments.md): made for one
// registered PromptPay receiver and one amount, read, cancelled. Creating
// costs no credit. Every call names the account whose key asked: another
// account's request is "not found", never shown.
import { randomInt } from 'node:crypto';
import { newId } from '../keys/api-key.js';
import type { Store } from '../ports/store.js';
import type { Receiver } from '../types.js';
import { isPaymentRequestId, type PaymentRequestInput } from './input.js';
import { MAX_AMOUNT_SATANG } from './money.js';
import { promptPayPayload } from './promptpay.js';
import { samePlace, targetOf } from './target.js';
import type { PaymentRequest } from './types.js';

/** Unique amounts add 1 to 99 satang: at most this many pending requests of one receiver share a requested amount. */
const EXTRA_SATANG = 99;

/** Why a request could not be made, in words for the merchant. */
export class PaymentRequestRefused extends Error {
  override name = 'PaymentRequestRefused';
}

/**
 * What a create did: made the request (`created`), found the reference's
 * request asked the same way (`same`: a retry, answered with it), or found
 * it made for another amount, receiver or expiry (`conflict`: a reused order
 * number, which must not read the old request's state as the new order's).
 */
export type Created = { outcome: 'created' | 'same' | 'conflict'; request: PaymentRequest };

export class PaymentRequestService {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A reference used before answers its first request: `same` when this call asked for it, `conflict` otherwise. */
  async create(accountId: string, input: PaymentRequestInput): Promise<Created> {
    const earlier = await this.store.findPaymentRequest(accountId, input.reference);
    if (earlier) return this.existing(accountId, input, earlier);
    const receiver = await this.receiverFor(accountId, input.receiver);
    const unique = await this.store.uniquePaymentAmounts(accountId);
    const createdAt = this.now();
    const base = {
      id: newId('pr'),
      accountId,
      receiverId: receiver.id,
      target: targetOf(receiver),
      reference: input.reference,
      requestedAmount: input.amount,
      uniqueAmount: unique,
      status: 'pending' as const,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + input.expiresInMinutes * 60_000),
      paidAt: null,
      paidBy: null,
      closedAt: null,
      successUrl: input.successUrl ?? null,
    };
    // Without the setting one try; with it, the extra satang from a random start, so concurrent creates rarely collide.
    const start = randomInt(EXTRA_SATANG);
    const extras = unique ? Array.from({ length: EXTRA_SATANG }, (_, i) => 1 + ((start + i) % EXTRA_SATANG)) : [0];
    for (const extra of extras) {
      const amount = input.amount + extra;
      if (amount > MAX_AMOUNT_SATANG) break;
      const request: PaymentRequest = { ...base, amount, promptpay: promptPayPayload(receiver, amount) };
      const result = await this.store.createPaymentRequest(request);
      if (result.status === 'created') return { outcome: 'created', request };
      // Another create of this reference won the race: the same answer as if it had come first.
      if (result.status === 'reference_taken') return this.existing(accountId, input, result.existing);
    }
    throw new PaymentRequestRefused('every unique amount near this one is pending for this receiver: wait for one to be paid or expire, or ask another amount');
  }

  /** Null for a malformed or unknown id and for another account's request. */
  async get(accountId: string, id: string): Promise<PaymentRequest | null> {
    if (!isPaymentRequestId(id)) return null;
    const request = await this.store.getPaymentRequest(id);
    return request?.accountId === accountId ? request : null;
  }

  byReference(accountId: string, reference: string): Promise<PaymentRequest | null> {
    return this.store.findPaymentRequest(accountId, reference);
  }

  /** The request after the cancel: cancelled, or as it was when it was no longer pending; null as get(). */
  async cancel(accountId: string, id: string): Promise<PaymentRequest | null> {
    if (!(await this.get(accountId, id))) return null;
    return this.store.cancelPaymentRequest(id, this.now());
  }

  private async existing(accountId: string, input: PaymentRequestInput, request: PaymentRequest): Promise<Created> {
    const same =
      input.amount === request.requestedAmount &&
      input.expiresInMinutes * 60_000 === request.expiresAt.getTime() - request.createdAt.getTime() &&
      (await this.sameReceiver(accountId, input.receiver, request));
    return { outcome: same ? 'same' : 'conflict', request };
  }

  /**
   * A named receiver is the request's when it is the same receiver or one
   * with the same target (removed and added again to fix a name). An omitted
   * one resolves as a create would (the account's only active PromptPay
   * receiver); when that finds none or several, the body named nothing to
   * compare and it is the request's.
   */
  private async sameReceiver(accountId: string, id: string | undefined, request: PaymentRequest): Promise<boolean> {
    if (id === request.receiverId) return true;
    const active = await this.activePromptPay(accountId);
    if (id === undefined && active.length !== 1) return true;
    const chosen = id === undefined ? active[0] : active.find((r) => r.id === id);
    return chosen !== undefined && request.target !== null && samePlace(targetOf(chosen), request.target);
  }

  private async activePromptPay(accountId: string): Promise<Receiver[]> {
    return (await this.store.listReceivers(accountId)).filter((r) => r.active && r.kind === 'promptpay');
  }

  private async receiverFor(accountId: string, id: string | undefined): Promise<Receiver> {
    const active = await this.activePromptPay(accountId);
    if (id === undefined) {
      if (active.length === 1) return active[0]!;
      throw new PaymentRequestRefused(
        active.length === 0
          ? 'the account has no active PromptPay receiver: register one first (slipgate receivers add)'
          : 'the account has several active PromptPay receivers: name one in receiver',
      );
    }
    const chosen = active.find((r) => r.id === id);
    if (!chosen) throw new PaymentRequestRefused(`receiver ${JSON.stringify(id)} is not an active PromptPay receiver of this account`);
    return chosen;
  }
}
