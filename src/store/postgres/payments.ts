// Payment requests on PostgreSQL (statements in ../sql/payments.ts). The
// unique indexes decide races between instances: a second insert of a
// reference, or a second request paid by one slip, waits for the first
// transaction and then fails on the index; both are read back and answered
// as what they are. Paying is part of the settle that charges the slip.
import { constraintViolation, StoreError, type Page, type SettlePayment } from '../../domain/ports/store.js';
import type { CreatePaymentResult, PayResult, PayingSlip, PaymentQuery, PaymentRequest } from '../../domain/payments/types.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import * as sql from '../sql/payments.js';
import { DELIVERY_COLUMNS, deliveryValues } from '../sql/webhooks.js';
import { time, type PgDb, type Run } from './db.js';
import { isDeadlock, numbered } from './sql.js';
import { holdGone, settleMany, type Settle } from './settle-batch.js';
import { openToStaff, payableBy } from '../../domain/payments/payable.js';
import { paymentVerdict, recordedVerdict } from '../../domain/payments/paying.js';

type Row = sql.PaymentRow<Date, string, boolean>;
const map = sql.paymentMapper<Date, string, boolean>((d) => d);
const asIs = (at: Date) => at;
const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
/** A slip racing itself for two requests loses on the index (or a deadlock) at most this many times before it reads the winner. */
const PAY_ATTEMPTS = 3;

export async function uniquePaymentAmounts(db: PgDb, accountId: string): Promise<boolean> {
  const { rows } = await db.run<{ on_: boolean }>(numbered(sql.UNIQUE_AMOUNTS), [accountId]);
  return rows[0]?.on_ === true;
}

export async function setUniquePaymentAmounts(db: PgDb, accountId: string, on: boolean): Promise<boolean> {
  return (await db.run(numbered(sql.SET_UNIQUE_AMOUNTS), [on, accountId])).rowCount === 1;
}

export async function createPaymentRequest(db: PgDb, p: PaymentRequest): Promise<CreatePaymentResult> {
  const existing = await findPaymentRequest(db, p.accountId, p.reference);
  if (existing) return { status: 'reference_taken', existing };
  try {
    await db.run(numbered(sql.INSERT_PAYMENT), sql.paymentValues(p, asIs, (b) => b));
    return { status: 'created' };
  } catch (err) {
    const rule = constraintViolation(err)?.constraint;
    if (rule === 'payment_requests_pending_amount') return { status: 'amount_taken' };
    // Another instance inserted the same reference a moment ago: it committed before the index refused ours.
    const first = rule === 'payment_requests_reference' ? await findPaymentRequest(db, p.accountId, p.reference) : null;
    if (first) return { status: 'reference_taken', existing: first };
    throw err;
  }
}

export async function getPaymentRequest(db: PgDb, id: string): Promise<PaymentRequest | null> {
  return getOn(db.run, id);
}

export async function findPaymentRequest(db: PgDb, accountId: string, reference: string): Promise<PaymentRequest | null> {
  const { rows } = await db.run<Row>(numbered(sql.FIND_PAYMENT), [accountId, reference]);
  return rows[0] ? map(rows[0]) : null;
}

export async function listPaymentRequests(db: PgDb, q: PaymentQuery): Promise<Page<PaymentRequest>> {
  const page = sql.paymentPageQuery(q, time);
  const { rows } = await db.run<Row>(numbered(page.sql), page.params);
  return toPage(rows.map(map), q.limit, (p) => p.createdAt);
}

export async function pendingPaymentRequests(db: PgDb, accountId: string, limit: number): Promise<PaymentRequest[]> {
  const { rows } = await db.run<Row>(numbered(sql.PENDING_OF_ACCOUNT), [accountId, limit]);
  return rows.map(map);
}

export async function takeCheckoutCheck(db: PgDb, id: string, max: number): Promise<boolean> {
  const { rows } = await db.run(`${numbered(sql.TAKE_CHECKOUT_CHECK)} RETURNING id`, [id, max]);
  return rows.length === 1;
}

export async function cancelPaymentRequest(db: PgDb, id: string, at: Date): Promise<PaymentRequest | null> {
  await db.run(numbered(sql.CANCEL_PAYMENT), [at, id]);
  return getOn(db.run, id);
}

/**
 * A settle that pays a payment request: the charge (the settle statement,
 * for this hold alone) and the payment in one transaction, so both commit or
 * neither does. It leaves the settle batch for its own commit, as the
 * payment's reads must see the rows its locks hold.
 */
export async function settleAndPay(db: PgDb, settle: Settle, payment: SettlePayment): Promise<PayResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(async (run) => {
        if (!(await settleMany(run, [settle])).has(settle.record.id)) throw holdGone(settle.record.id);
        const result = await payOn(run, payment);
        await run(numbered(sql.SET_VT_PAYMENT), sql.vtPaymentValues(settle.record.id, recordedVerdict(paymentVerdict(payment, result))));
        return result;
      });
    } catch (err) {
      // The same slip paid another request in a transaction that committed while ours ran (read it again),
      // or a deadlock with a batch: the whole transaction rolled back, the hold is still there.
      const again = constraintViolation(err)?.constraint === 'payment_requests_paying_slip' || isDeadlock(err);
      if (!again || attempt >= PAY_ATTEMPTS) throw err;
    }
  }
}

/**
 * A settle whose slip the domain refused for its payment request: the
 * charge and the verdict kept with its record in one transaction, outside
 * the batch (these are few; the batch's statement stays as it is).
 */
export async function settleWithVerdict(db: PgDb, settle: Settle): Promise<void> {
  const verdict = settle.record.payment!;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(async (run) => {
        if (!(await settleMany(run, [settle])).has(settle.record.id)) throw holdGone(settle.record.id);
        await run(numbered(sql.SET_VT_PAYMENT), sql.vtPaymentValues(settle.record.id, verdict));
      });
    } catch (err) {
      // A deadlock with a batch rolled the whole transaction back: the hold is still there.
      if (!isDeadlock(err) || attempt >= PAY_ATTEMPTS) throw err;
    }
  }
}

/** Staff resolution: the payment and the verification's verdict in one transaction, retried as a settle's payment is. */
export async function resolvePaymentRequest(db: PgDb, payment: SettlePayment): Promise<PayResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(async (run) => {
        const result = await payOn(run, payment, openToStaff);
        if (result.status === 'paid') await run(numbered(sql.SET_VT_PAYMENT), sql.vtPaymentValues(payment.slip.verificationId, sql.paidVerdict(payment.request.id)));
        return result;
      });
    } catch (err) {
      const again = constraintViolation(err)?.constraint === 'payment_requests_paying_slip' || isDeadlock(err);
      if (!again || attempt >= PAY_ATTEMPTS) throw err;
    }
  }
}

async function payOn(run: Run, { request: { id }, slip, at, deliveries }: SettlePayment, payable: (request: PaymentRequest, slip: PayingSlip) => boolean = payableBy): Promise<PayResult> {
  // The row lock makes two slips for one request take turns: the second sees it paid.
  const { rows } = await run<Row>(`${numbered(sql.GET_PAYMENT)} FOR UPDATE`, [id]);
  if (!rows[0]) throw new StoreError('not_found', 'payment request not found');
  const request = map(rows[0]);
  if (sql.paidBySameSlip(request, slip)) return { status: 'paid', request };
  if (!payable(request, slip)) return { status: 'not_pending', request };
  const other = await run<{ id: string }>(numbered(sql.PAID_BY_SLIP), [slip.transactionId, slip.sendingBank]);
  if (other.rows[0]) return { status: 'slip_used', otherRequestId: other.rows[0].id };
  await run(numbered(sql.PAY), sql.payValues(id, slip, at, asIs));
  for (const d of deliveries) await run(INSERT_DELIVERY, deliveryValues(d, asIs));
  return { status: 'paid', request: { ...request, status: 'paid', paidAt: at, paidBy: slip } };
}

export async function duePaymentRequests(db: PgDb, now: Date, limit: number): Promise<PaymentRequest[]> {
  const { rows } = await db.run<Row>(numbered(sql.DUE_PAYMENTS), [now, limit]);
  return rows.map(map);
}

export async function expirePaymentRequests(
  db: PgDb,
  ids: readonly string[],
  now: Date,
  deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[],
): Promise<PaymentRequest[]> {
  return db.tx(async (run) => {
    const expired: PaymentRequest[] = [];
    // Each UPDATE takes the row lock and re-checks pending: a payment holding it decides first.
    for (const id of ids) {
      if ((await run(numbered(sql.EXPIRE_ONE), [now, id, now])).rowCount !== 1) continue;
      const after = (await getOn(run, id))!;
      for (const d of deliveries(after)) await run(INSERT_DELIVERY, deliveryValues(d, asIs));
      expired.push(after);
    }
    return expired;
  });
}

async function getOn(run: Run, id: string): Promise<PaymentRequest | null> {
  const { rows } = await run<Row>(numbered(sql.GET_PAYMENT), [id]);
  return rows[0] ? map(rows[0]) : null;
}
