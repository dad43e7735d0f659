// Payment requests on the SQL engines: the row shape, its mapping and the
// statements both engines run. Placeholders are `?`; the PostgreSQL adapter
// renumbers them. Times: SQLite epoch ms, PostgreSQL timestamptz; amounts in
// satang (PostgreSQL bigint, read back as text).
import { decodeCursor } from '../cursor.js';
import type { PayingSlip, PaymentQuery, PaymentRecord, PaymentRequest, PaymentStatus, PaymentTarget } from '../../domain/payments/types.js';

export interface PaymentRow<Time, Int, Bool> {
  id: string;
  account_id: string;
  receiver_id: string;
  /** The request's own target (null only for an old request whose receiver was gone when it was back-filled). */
  target_kind: string | null;
  target_bank_code: string | null;
  target_number: string | null;
  target_proxy_type: string | null;
  target_name_th: string | null;
  target_name_en: string | null;
  reference: string;
  /** Null for requests made without one (and before the column). */
  success_url: string | null;
  amount: Int;
  requested_amount: Int;
  unique_amount: Bool;
  promptpay: string;
  status: string;
  created_at: Time;
  expires_at: Time;
  paid_at: Time | null;
  paid_verification_id: string | null;
  paid_transaction_id: string | null;
  paid_sending_bank: string | null;
  paid_amount: Int | null;
  paid_transferred_at: Time | null;
  closed_at: Time | null;
}

export function paymentMapper<Time, Int, Bool>(date: (value: Time) => Date) {
  const maybe = (value: Time | null) => (value === null ? null : date(value));
  return (r: PaymentRow<Time, Int, Bool>): PaymentRequest => ({
    id: r.id,
    accountId: r.account_id,
    receiverId: r.receiver_id,
    target:
      r.target_kind === null
        ? null
        : {
            kind: r.target_kind as PaymentTarget['kind'],
            bankCode: r.target_bank_code,
            number: r.target_number ?? '',
            proxyType: r.target_proxy_type as PaymentTarget['proxyType'],
            nameTh: r.target_name_th,
            nameEn: r.target_name_en,
          },
    reference: r.reference,
    successUrl: r.success_url ?? null,
    amount: Number(r.amount),
    requestedAmount: Number(r.requested_amount),
    uniqueAmount: Boolean(r.unique_amount),
    promptpay: r.promptpay,
    status: r.status as PaymentStatus,
    createdAt: date(r.created_at),
    expiresAt: date(r.expires_at),
    paidAt: maybe(r.paid_at),
    paidBy:
      r.paid_transaction_id === null
        ? null
        : {
            verificationId: r.paid_verification_id ?? '',
            transactionId: r.paid_transaction_id,
            sendingBank: r.paid_sending_bank ?? '',
            amount: Number(r.paid_amount),
            transferredAt: date(r.paid_transferred_at as Time),
          },
    closedAt: maybe(r.closed_at),
  });
}

export const INSERT_PAYMENT = `INSERT INTO payment_requests
  (id, account_id, receiver_id, target_kind, target_bank_code, target_number, target_proxy_type, target_name_th, target_name_en,
   reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, success_url)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export const paymentValues = (p: PaymentRequest, time: (at: Date) => unknown, bool: (b: boolean) => unknown): unknown[] => [
  p.id,
  p.accountId,
  p.receiverId,
  p.target?.kind ?? null,
  p.target?.bankCode ?? null,
  p.target?.number ?? null,
  p.target?.proxyType ?? null,
  p.target?.nameTh ?? null,
  p.target?.nameEn ?? null,
  p.reference,
  p.amount,
  p.requestedAmount,
  bool(p.uniqueAmount),
  p.promptpay,
  p.status,
  time(p.createdAt),
  time(p.expiresAt),
  p.successUrl,
];

export const GET_PAYMENT = 'SELECT * FROM payment_requests WHERE id = ?';
export const FIND_PAYMENT = 'SELECT * FROM payment_requests WHERE account_id = ? AND reference = ?';
/** SQLite checks first, inside its write transaction; PostgreSQL leaves it to the partial unique index. */
export const PENDING_AMOUNT = "SELECT 1 FROM payment_requests WHERE receiver_id = ? AND amount = ? AND status = 'pending' AND unique_amount = 1";
export const PAID_BY_SLIP = 'SELECT id FROM payment_requests WHERE paid_transaction_id = ? AND paid_sending_bank = ?';
export const TAKE_CHECKOUT_CHECK = 'UPDATE payment_requests SET checkout_checks = checkout_checks + 1 WHERE id = ? AND checkout_checks < ?';
export const CANCEL_PAYMENT = "UPDATE payment_requests SET status = 'cancelled', closed_at = ? WHERE id = ? AND status = 'pending'";
/** Run after the payable check (payments/payable.ts) under the write's lock: an `expired` request is paid by an in-time transfer. */
export const PAY = `UPDATE payment_requests
  SET status = 'paid', paid_at = ?, paid_verification_id = ?, paid_transaction_id = ?, paid_sending_bank = ?, paid_amount = ?, paid_transferred_at = ?
  WHERE id = ? AND status IN ('pending', 'expired')`;
/** The payment verdict kept with the verification's record, in the settle's write. */
export const SET_VT_PAYMENT = 'UPDATE verify_transactions SET payment_request_id = ?, payment_status = ?, payment_reason = ? WHERE id = ?';
/** The verdict a staff resolution keeps with the verification that paid the request. */
export const paidVerdict = (requestId: string): PaymentRecord => ({ requestId, status: 'paid', reason: null });
export const vtPaymentValues = (verificationId: string, v: PaymentRecord): unknown[] => [v.requestId, v.status, v.reason, verificationId];
export const EXPIRE_ONE = "UPDATE payment_requests SET status = 'expired', closed_at = ? WHERE id = ? AND status = 'pending' AND expires_at <= ?";
/**
 * An account's pending requests, newest first (LINE matching): by the
 * partial index on pending requests alone, so the account's closed history
 * is never read.
 */
export const PENDING_OF_ACCOUNT = "SELECT * FROM payment_requests WHERE account_id = ? AND status = 'pending' ORDER BY created_at DESC, id DESC LIMIT ?";
export const DUE_PAYMENTS = "SELECT * FROM payment_requests WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?";
export const UNIQUE_AMOUNTS = 'SELECT unique_payment_amounts AS on_ FROM accounts WHERE id = ?';
export const SET_UNIQUE_AMOUNTS = 'UPDATE accounts SET unique_payment_amounts = ? WHERE id = ? AND deleted_at IS NULL';

export const payValues = (id: string, slip: PayingSlip, at: Date, time: (at: Date) => unknown): unknown[] => [
  time(at),
  slip.verificationId,
  slip.transactionId,
  slip.sendingBank,
  slip.amount,
  time(slip.transferredAt),
  id,
];

/** Whether a slip that found the request paid had paid it itself (a retried verification). */
export { paidBySameSlip } from '../../domain/payments/payable.js';

/** Newest first, by account (its index) or over every account. */
export function paymentPageQuery(q: PaymentQuery, time: (ms: number) => unknown): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (q.accountId) add('account_id = ?', q.accountId);
  if (q.status) add('status = ?', q.status);
  if (q.from) add('created_at >= ?', time(q.from.getTime()));
  if (q.to) add('created_at < ?', time(q.to.getTime()));
  if (q.after) {
    const c = decodeCursor(q.after);
    add('(created_at < ? OR (created_at = ? AND id < ?))', time(c.at), time(c.at), c.id);
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  return { sql: `SELECT * FROM payment_requests ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, params: [...params, q.limit + 1] };
}
