// Staff resolution (docs/payments.md#staff-resolution): "this slip paid that
// order". A verified slip that paid no request (an ambiguous LINE match, a
// wrong amount, a slip sent without a request) is attached by a person to
// the request it paid. The once-rules are the store's, as for a settle's
// payment: the request pending or expired, the slip paying no other request.
// A person looked, so another amount is accepted (and recorded); a slip paid
// to another receiver is refused unless forced, since it may be fraud. No
// credit moves: the slip was charged when it was verified.
import { createHash } from 'node:crypto';
import type { Store } from '../ports/store.js';
import type { ChangeLog } from '../ports/logger.js';
import type { VerifyTransactionRecord } from '../types.js';
import { recordAdminEvent } from '../admin/events.js';
import { paymentEvent } from './events.js';
import { bahtOf, slipSatang } from './money.js';
import { paidToTarget } from './target.js';
import { paidBySameSlip } from './payable.js';
import type { PayingSlip, PaymentRequest } from './types.js';

const RESOLVE_ACTION = 'resolvePaymentRequest';

export type ResolveRefusal = 'request_not_found' | 'verification_not_found' | 'other_account' | 'already_paid' | 'cancelled' | 'slip_already_used' | 'wrong_receiver';

/** Why a resolution changed nothing, in words for staff; `reason` for machines. */
export class ResolveRefused extends Error {
  override name = 'ResolveRefused';
  constructor(
    readonly reason: ResolveRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface ResolveInput {
  paymentRequestId: string;
  /** The verification (its record's id, `req_…`) whose slip paid it. */
  verificationId: string;
  /** Who resolved it (an admin token or the CLI user, as admin events name them). */
  actor: string;
  note?: string | null;
  /** Accept a slip paid to another receiver than the request's. */
  force?: boolean;
}

export interface Resolved {
  request: PaymentRequest;
  /** False: this slip had paid it already (resolved before, or the customer's own send): nothing written. */
  changed: boolean;
}

export interface PaymentResolutionsDeps {
  store: Store;
  /** The endpoints of an account listening to `payment_request.paid`. */
  endpointsFor(accountId: string): Promise<readonly string[]>;
  log?: ChangeLog;
  now?: () => Date;
  /** Tells the customer who sent the slip, where the store knows them (resolve-notice.ts); never rejects. */
  tellCustomer?(record: VerifyTransactionRecord, request: PaymentRequest): Promise<void>;
}

export class PaymentResolutions {
  constructor(private readonly deps: PaymentResolutionsDeps) {}

  async resolve(input: ResolveInput): Promise<Resolved> {
    const { store } = this.deps;
    const request = await store.getPaymentRequest(input.paymentRequestId);
    if (!request) throw new ResolveRefused('request_not_found', 'payment request not found');
    const record = (await store.listVerifyTransactions({ id: input.verificationId, limit: 1 })).items[0];
    if (!record) throw new ResolveRefused('verification_not_found', 'verification not found: give the id of a verified slip (req_…) from the audit log');
    if (record.accountId !== request.accountId) throw new ResolveRefused('other_account', "the verification is another account's than the payment request's");
    const slip = payingSlipOf(record);
    if (paidBySameSlip(request, slip)) return { request, changed: false };
    if (request.status === 'paid') throw new ResolveRefused('already_paid', `another slip paid it already (verification ${request.paidBy?.verificationId ?? 'unknown'})`);
    if (request.status === 'cancelled') throw new ResolveRefused('cancelled', 'the payment request was cancelled');
    // The record keeps the slip as the bank answered; after retention its names are gone and only force passes it.
    const receiverMatches = await paidToTarget(request, record.response, () => store.listReceivers(request.accountId));
    if (!receiverMatches && !input.force) {
      throw new ResolveRefused('wrong_receiver', "the slip was not paid to the request's receiver: resolve it with force only after checking it is really this order's (it may be fraud)");
    }
    const at = (this.deps.now ?? (() => new Date()))();
    const endpoints = await this.deps.endpointsFor(request.accountId);
    const deliveries = paymentEvent('payment_request.paid', endpoints, () => at, { resolvedBy: 'staff' })({ ...request, status: 'paid', paidAt: at, paidBy: slip });
    const result = await store.resolvePaymentRequest({ request, slip, at, deliveries });
    if (result.status === 'slip_used') throw new ResolveRefused('slip_already_used', `this slip paid another payment request (${result.otherRequestId})`);
    if (result.status === 'not_pending') {
      // Paid or cancelled by someone else between the read and the write.
      const cancelled = result.request.status === 'cancelled';
      throw new ResolveRefused(cancelled ? 'cancelled' : 'already_paid', cancelled ? 'the payment request was cancelled' : 'another slip paid it already');
    }
    // Paid by this slip; the customer's own send of it may have won the race, and that is no staff resolution.
    if (result.request.paidBy?.verificationId !== slip.verificationId) return { request: result.request, changed: false };
    await this.record(input, request, slip, receiverMatches, at);
    await this.deps.tellCustomer?.(record, result.request);
    return { request: result.request, changed: true };
  }

  /**
   * Keyed by the pair: two resolutions of one pair racing both see it paid
   * by this slip, and the trail keeps one event (the first's).
   */
  private async record(input: ResolveInput, request: PaymentRequest, slip: PayingSlip, receiverMatches: boolean, at: Date): Promise<void> {
    const note = input.note?.trim() || null;
    const details = {
      paymentRequestId: request.id,
      reference: request.reference,
      verificationId: slip.verificationId,
      transactionId: slip.transactionId,
      sendingBank: slip.sendingBank,
      requestAmount: bahtOf(request.amount),
      slipAmount: bahtOf(slip.amount),
      amountMismatch: slip.amount !== request.amount,
      receiverMismatch: !receiverMatches,
      statusBefore: request.status,
    };
    this.deps.log?.info({ action: RESOLVE_ACTION, actor: input.actor, targetId: request.accountId, accountId: request.accountId, reason: note, ...details }, 'payment request resolved by staff');
    const id = `evt_${createHash('sha256').update(JSON.stringify([RESOLVE_ACTION, request.id, slip.verificationId])).digest('hex').slice(0, 32)}`;
    await recordAdminEvent(this.deps.store, at, { id, actor: input.actor, action: RESOLVE_ACTION, targetId: request.accountId, reason: note, details });
  }
}

/** The slip of a verification record, as a request's `paidBy` keeps it; the bank's transfer time (kept by retention too). */
function payingSlipOf(r: VerifyTransactionRecord): PayingSlip {
  const seconds = r.response?.timestamp;
  return {
    verificationId: r.id,
    transactionId: r.transactionId,
    sendingBank: r.sendingBank,
    amount: slipSatang(r.amount),
    transferredAt: typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000) : r.createdAt,
  };
}
