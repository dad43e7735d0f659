// Payment requests on SQLite (statements in ../sql/payments.ts). Each write
// is one IMMEDIATE transaction (paying: the settle's own, holds.ts): other
// processes on the file wait for it, so the check of a request's state and
// its change are never split.
import type { Page, SettlePayment } from '../../domain/ports/store.js';
import { StoreError } from '../../domain/ports/store.js';
import type { CreatePaymentResult, PayResult, PayingSlip, PaymentQuery, PaymentRecord, PaymentRequest } from '../../domain/payments/types.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import * as sql from '../sql/payments.js';
import { deliveryValues } from '../sql/webhooks.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';
import { openToStaff, payableBy } from '../../domain/payments/payable.js';
import { paymentVerdict, recordedVerdict } from '../../domain/payments/paying.js';

type Row = sql.PaymentRow<number, number, number>;
const map = sql.paymentMapper<number, number, number>((ms) => new Date(ms));
const ms = (at: Date) => at.getTime();
const bit = (b: boolean) => (b ? 1 : 0);

export async function uniquePaymentAmounts(lite: Lite, accountId: string): Promise<boolean> {
  const r = lite.sql(sql.UNIQUE_AMOUNTS).get(accountId) as { on_: number } | undefined;
  return r?.on_ === 1;
}

export async function setUniquePaymentAmounts(lite: Lite, accountId: string, on: boolean): Promise<boolean> {
  return lite.sql(sql.SET_UNIQUE_AMOUNTS).run(bit(on), accountId).changes === 1;
}

export async function createPaymentRequest(lite: Lite, p: PaymentRequest): Promise<CreatePaymentResult> {
  return lite.db
    .transaction((): CreatePaymentResult => {
      const existing = findSync(lite, p.accountId, p.reference);
      if (existing) return { status: 'reference_taken', existing };
      if (p.uniqueAmount && lite.sql(sql.PENDING_AMOUNT).get(p.receiverId, p.amount)) {
        return { status: 'amount_taken' };
      }
      try {
        lite.sql(sql.INSERT_PAYMENT).run(...sql.paymentValues(p, ms, bit));
      } catch (err) {
        throw mapError(err);
      }
      return { status: 'created' };
    })
    .immediate();
}

export async function getPaymentRequest(lite: Lite, id: string): Promise<PaymentRequest | null> {
  return getSync(lite, id);
}

export async function findPaymentRequest(lite: Lite, accountId: string, reference: string): Promise<PaymentRequest | null> {
  return findSync(lite, accountId, reference);
}

export async function listPaymentRequests(lite: Lite, q: PaymentQuery): Promise<Page<PaymentRequest>> {
  const page = sql.paymentPageQuery(q, (at) => at);
  return toPage((lite.sql(page.sql).all(...page.params) as Row[]).map(map), q.limit, (p) => p.createdAt);
}

export async function pendingPaymentRequests(lite: Lite, accountId: string, limit: number): Promise<PaymentRequest[]> {
  return (lite.sql(sql.PENDING_OF_ACCOUNT).all(accountId, limit) as Row[]).map(map);
}

export async function takeCheckoutCheck(lite: Lite, id: string, max: number): Promise<boolean> {
  return lite.sql(sql.TAKE_CHECKOUT_CHECK).run(id, max).changes === 1;
}

export async function cancelPaymentRequest(lite: Lite, id: string, at: Date): Promise<PaymentRequest | null> {
  lite.sql(sql.CANCEL_PAYMENT).run(ms(at), id);
  return getSync(lite, id);
}

/**
 * Pays `payment.request` with its slip, inside the settle's savepoint
 * (holds.ts): the request still pending and the slip unused, read and
 * written in the one write transaction the file allows at a time.
 */
export function payInSettle(lite: Lite, payment: SettlePayment): PayResult {
  const result = payOnce(lite, payment);
  lite.sql(sql.SET_VT_PAYMENT).run(...sql.vtPaymentValues(payment.slip.verificationId, recordedVerdict(paymentVerdict(payment, result))));
  return result;
}

/** The verdict a settle keeps with its record when the slip alone refused the payment (no payment to write). */
export function keepVerdict(lite: Lite, verificationId: string, verdict: PaymentRecord): void {
  lite.sql(sql.SET_VT_PAYMENT).run(...sql.vtPaymentValues(verificationId, verdict));
}

/** Staff resolution: the payment and the verification's verdict in one IMMEDIATE transaction. */
export async function resolvePaymentRequest(lite: Lite, payment: SettlePayment): Promise<PayResult> {
  return lite.db
    .transaction((): PayResult => {
      const result = payOnce(lite, payment, openToStaff);
      if (result.status === 'paid') keepVerdict(lite, payment.slip.verificationId, sql.paidVerdict(payment.request.id));
      return result;
    })
    .immediate();
}

function payOnce(lite: Lite, payment: SettlePayment, payable: (request: PaymentRequest, slip: PayingSlip) => boolean = payableBy): PayResult {
  const { request: { id }, slip } = payment;
  const request = getSync(lite, id);
  if (!request) throw new StoreError('not_found', 'payment request not found');
  if (sql.paidBySameSlip(request, slip)) return { status: 'paid', request };
  if (!payable(request, slip)) return { status: 'not_pending', request };
  const other = lite.sql(sql.PAID_BY_SLIP).get(slip.transactionId, slip.sendingBank) as { id: string } | undefined;
  if (other) return { status: 'slip_used', otherRequestId: other.id };
  lite.sql(sql.PAY).run(...sql.payValues(id, slip, payment.at, ms));
  insertDeliveries(lite, payment.deliveries);
  return { status: 'paid', request: { ...request, status: 'paid', paidAt: payment.at, paidBy: slip } };
}

export async function duePaymentRequests(lite: Lite, now: Date, limit: number): Promise<PaymentRequest[]> {
  return (lite.sql(sql.DUE_PAYMENTS).all(ms(now), limit) as Row[]).map(map);
}

export async function expirePaymentRequests(
  lite: Lite,
  ids: readonly string[],
  now: Date,
  deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[],
): Promise<PaymentRequest[]> {
  return lite.db
    .transaction((): PaymentRequest[] =>
      ids.flatMap((id) => {
        if (lite.sql(sql.EXPIRE_ONE).run(ms(now), id, ms(now)).changes !== 1) return [];
        const expired = getSync(lite, id)!;
        insertDeliveries(lite, deliveries(expired));
        return [expired];
      }),
    )
    .immediate();
}

function insertDeliveries(lite: Lite, list: readonly NewWebhookDelivery[]): void {
  for (const d of list) lite.stmt.insertDelivery.run(...deliveryValues(d, ms));
}

function getSync(lite: Lite, id: string): PaymentRequest | null {
  const r = lite.sql(sql.GET_PAYMENT).get(id) as Row | undefined;
  return r ? map(r) : null;
}

function findSync(lite: Lite, accountId: string, reference: string): PaymentRequest | null {
  const r = lite.sql(sql.FIND_PAYMENT).get(accountId, reference) as Row | undefined;
  return r ? map(r) : null;
}
