// Payment requests on MongoDB: the requests, and the two claim collections
// that stand in for the SQL engines' partial unique indexes (FerretDB, the
// test server, lacks partialFilterExpression): a slip's claim (one request
// per slip) and a pending amount's claim (one pending request per receiver
// and amount, under the unique-amount setting). Their unique _id decides.
import { Schema, type Connection, type Model } from 'mongoose';
import type { PaymentTarget } from '../../domain/payments/types.js';

export interface PaymentRequestDoc {
  _id: string;
  accountId: string;
  receiverId: string;
  /** Absent only on a request made before targets were kept, until migrate() back-fills it (null: its receiver was gone). */
  target?: PaymentTarget | null;
  /** Absent on requests made before the checkout page. */
  successUrl?: string | null;
  reference: string;
  amount: number;
  requestedAmount: number;
  uniqueAmount: boolean;
  promptpay: string;
  status: string;
  createdAt: Date;
  expiresAt: Date;
  paidAt: Date | null;
  paidBy: { verificationId: string; transactionId: string; sendingBank: string; amount: number; transferredAt: Date } | null;
  closedAt: Date | null;
  /** The webhook outbox written with the state change (webhooks.ts moves it to deliveries). */
  outbox?: unknown[];
  outboxAt?: Date;
}

/** `_id`: the slip's sending bank and transaction id; names the request it paid (or is paying). */
export interface PaymentSlipDoc {
  _id: string;
  requestId: string;
  at: Date;
}

/** `_id`: receiver and amount; held by one pending request. */
export interface PaymentAmountDoc {
  _id: string;
  requestId: string;
  /** When it was claimed: a claim whose request never came is taken over once old. */
  at?: Date;
}


const OPTIONS = { versionKey: false, minimize: false, autoIndex: false, autoCreate: false, strict: false } as const;
const str = { type: String, required: true } as const;
const date = { type: Date, required: true } as const;

const paymentRequestSchema = new Schema<PaymentRequestDoc>(
  {
    _id: str,
    accountId: str,
    receiverId: str,
    target: { type: Schema.Types.Mixed, default: null },
    successUrl: { type: String, default: null },
    reference: str,
    amount: { type: Number, required: true },
    requestedAmount: { type: Number, required: true },
    uniqueAmount: { type: Boolean, required: true },
    promptpay: str,
    status: str,
    createdAt: date,
    expiresAt: date,
    paidAt: { type: Date, default: null },
    paidBy: { type: Schema.Types.Mixed, default: null },
    closedAt: { type: Date, default: null },
  },
  OPTIONS,
);
paymentRequestSchema.index({ accountId: 1, reference: 1 }, { unique: true });
paymentRequestSchema.index({ status: 1, expiresAt: 1 });
paymentRequestSchema.index({ accountId: 1, createdAt: -1, _id: -1 });
// LINE matching reads an account's pending requests, newest first: status
// is an equality after the account, so the closed history is never read.
paymentRequestSchema.index({ accountId: 1, status: 1, createdAt: -1, _id: -1 });
paymentRequestSchema.index({ createdAt: -1, _id: -1 });
paymentRequestSchema.index({ outboxAt: 1 });

const paymentSlipSchema = new Schema<PaymentSlipDoc>({ _id: str, requestId: str, at: date }, OPTIONS);
const paymentAmountSchema = new Schema<PaymentAmountDoc>({ _id: str, requestId: str, at: { type: Date } }, OPTIONS);

export interface PaymentModels {
  paymentRequests: Model<PaymentRequestDoc>;
  paymentSlips: Model<PaymentSlipDoc>;
  paymentAmounts: Model<PaymentAmountDoc>;
}

export function definePaymentModels(conn: Connection): PaymentModels {
  return {
    paymentRequests: conn.model<PaymentRequestDoc>('PaymentRequest', paymentRequestSchema, 'payment_requests'),
    paymentSlips: conn.model<PaymentSlipDoc>('PaymentSlip', paymentSlipSchema, 'payment_slips'),
    paymentAmounts: conn.model<PaymentAmountDoc>('PaymentAmount', paymentAmountSchema, 'payment_amounts'),
  };
}
