// Storage port: payment requests (domain/payments).
import type { CreatePaymentResult, PayResult, PaymentQuery, PaymentRequest } from '../payments/types.js';
import type { SettlePayment } from './store-verify-path.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';
import type { Page } from './store-page.js';

// Payment requests (domain/payments). Each write below is atomic: a
// reference makes one request per account, a unique amount is held by one
// pending request of its receiver, whatever runs at the same time on other
// instances. Paying one is part of the settle that charges the slip
// (VerifyPathStore.settleHold): a request is paid once and a slip pays once.
export interface PaymentRequestStore {
  /** Whether the account's new payment requests get unique amounts (false for an unknown account). */
  uniquePaymentAmounts(accountId: string): Promise<boolean>;
  /** False for an unknown or deleted account. */
  setUniquePaymentAmounts(accountId: string, on: boolean): Promise<boolean>;
  /** The account's request with the same reference, if any, wins: it is handed back and nothing is written. */
  createPaymentRequest(request: PaymentRequest): Promise<CreatePaymentResult>;
  getPaymentRequest(id: string): Promise<PaymentRequest | null>;
  findPaymentRequest(accountId: string, reference: string): Promise<PaymentRequest | null>;
  /** Newest first. */
  listPaymentRequests(query: PaymentQuery): Promise<Page<PaymentRequest>>;
  /**
   * The account's pending requests, newest first, at most `limit`: read by
   * an index of pending requests alone, so the cost does not grow with the
   * account's history (LINE matching, domain/line/payment-match.ts).
   */
  pendingPaymentRequests(accountId: string, limit: number): Promise<PaymentRequest[]>;
  /** Pending → cancelled; the request as it is after (unchanged when not pending), null for an unknown id. */
  cancelPaymentRequest(id: string, at: Date): Promise<PaymentRequest | null>;
  /**
   * Counts one checkout-page slip check of the request if fewer than `max`
   * were counted, atomically whatever runs at the same time on other
   * instances: the bound on what a page's visitors can spend. False when
   * `max` were counted already (or the request is unknown).
   */
  takeCheckoutCheck(id: string, max: number): Promise<boolean>;
  /**
   * Staff resolution (payments/resolve.ts): pays the request with the slip of
   * a verification charged already, iff the request is pending or expired
   * (whatever the transfer time: a person looked) and the slip paid no
   * request; the slip that already paid it is `paid` again and writes
   * nothing. When it pays, the same write keeps the verdict (paid) with the
   * verification's record and writes `deliveries`. MongoDB writes the
   * record's verdict right after the payment: a crash between the two leaves
   * the old verdict, which resolving the same pair again sets.
   */
  resolvePaymentRequest(payment: SettlePayment): Promise<PayResult>;
  /** Up to `limit` pending requests that expired at or before `now`, soonest expired first. */
  duePaymentRequests(now: Date, limit: number): Promise<PaymentRequest[]>;
  /**
   * Marks each of `ids` still pending and expired at or before `now` as
   * expired, with its `payment_request.expired` deliveries in the same
   * write. Returns those it marked (a request paid or cancelled meanwhile is
   * left as it is).
   */
  expirePaymentRequests(ids: readonly string[], now: Date, deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[]): Promise<PaymentRequest[]>;
}
