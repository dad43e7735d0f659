// Wire types of POST /api/v1/verify as the SDK returns them. The slip and
// check result shapes are the server's own (type-only imports, no runtime).
import type { CheckResults, ReceiverResult } from '../domain/checks/run.js';
import type { VerifiedSlip } from '../domain/types.js';
import type { Checks } from './checks.generated.js';
import type { ShownPaymentRequest } from '../domain/rechecks/view.js';
import type { PaymentVerdict } from '../domain/payments/paying.js';

export type { PaymentVerdict } from '../domain/payments/paying.js';
export type { PaymentRefusal, PaymentStatus } from '../domain/payments/types.js';
/**
 * A payment request as every route answers it (docs/payments.md); amounts in
 * baht, times in Bangkok time. A read shows `status: "verifying"` and
 * `verifying` (the slip) while a slip sent for it is being re-checked.
 */
export type PaymentRequestData = ShownPaymentRequest & {
  /** The request's checkout page (docs/payments.md#checkout-page); null when the server has no PUBLIC_URL or SECRETS_KEY. */
  checkoutUrl: string | null;
  /** Where the checkout page sends the customer once paid; null when none was given. */
  successUrl: string | null;
};

export type {
  AmountResult,
  CheckResults,
  DuplicateResult,
  DuplicateUnknown,
  MaxAgeResult,
  ReceiverAccountResult,
  ReceiverNameResult,
  ReceiverResult,
} from '../domain/checks/run.js';
export type SlipData = VerifiedSlip;
export type { Checks } from './checks.generated.js';

/** Result keys exist exactly for the checks that were requested. */
export type ChecksFor<C extends Checks> = {
  [K in keyof C & keyof CheckResults as C[K] extends false | undefined ? never : K]-?: NonNullable<CheckResults[K]>;
};

/** The only errors with a numeric code (docs/contract.md#account-errors). */
export const ERROR_CODES = {
  API_KEY_MISSING: 1020,
  INVALID_API_KEY: 1021,
  USER_NOT_FOUND: 1022,
  INSUFFICIENT_FUND: 1023,
  /** The key is locked to IP ranges that do not include this client. */
  IP_NOT_ALLOWED: 1024,
  /**
   * The account's receiver policy is `require` and the slip paid none of its
   * registered receivers (HTTP 400). Not charged; creditsRemaining is set.
   */
  RECEIVER_NOT_REGISTERED: 1025,
  /**
   * createPaymentRequest only (HTTP 409): the reference was used before for
   * another amount, receiver or expiry. Nothing was made; see ReferenceConflict.
   */
  REFERENCE_CONFLICT: 1026,
  /**
   * A verify that would keep its slip for re-checks (HTTP 429, kind
   * `rate_limited`): the account has RECHECK_MAX_PER_ACCOUNT being re-checked
   * already. Nothing kept or charged.
   */
  RECHECK_LIMIT: 1027,
} as const;
/** The account errors' codes (1020–1025). */
export type ErrorCode = Exclude<(typeof ERROR_CODES)[keyof typeof ERROR_CODES], typeof ERROR_CODES.REFERENCE_CONFLICT | typeof ERROR_CODES.RECHECK_LIMIT>;

interface SuccessBody {
  status: 'success';
  httpStatus: 200;
  data: SlipData;
  message: string;
  qrcode: string;
  /** The account's balance after this charge (x-credits-remaining). */
  creditsRemaining?: number;
  /** Only when verified with `paymentRequest`: whether this slip paid it, or why not. */
  paymentRequest?: PaymentVerdict;
}

/** What the account's receiver policy (`report`, `require`) adds to every success, requested or not. */
interface PolicyResults {
  receiver?: ReceiverResult;
}

/** `checks` is there when checks were requested, and when the account's receiver policy reports. */
export type VerifySuccess<R = undefined> = SuccessBody & ([R] extends [undefined] ? { checks?: PolicyResults } : { checks: R & PolicyResults });

/** 1020–1025: the key or the account is the problem; nothing was charged. */
export interface AccountError {
  status: 'error';
  kind: 'account';
  httpStatus: number;
  code: ErrorCode;
  message: string;
  /** The balance, on 1023 and 1025; absent on the key errors 1020–1022 and 1024. */
  creditsRemaining?: number;
}

/**
 * Every other error answer. `verification`: the slip could not be verified
 * (HTTP 200: not found, bank error, timeout, malformed QR). `invalid_request`:
 * 400/413/415 — fix the request. `rate_limited` (429) and `unavailable` (503)
 * were retried already. Nothing was charged in any of them.
 */
export interface OtherError {
  status: 'error';
  kind: 'verification' | 'invalid_request' | 'rate_limited' | 'unavailable' | 'server_error';
  httpStatus: number;
  /** Only 1027 (`rate_limited`): too many slips of the account being re-checked. */
  code?: typeof ERROR_CODES.RECHECK_LIMIT;
  message: string;
  /** The account's balance when the key resolved to a live account (x-credits-remaining). */
  creditsRemaining?: number;
}

export type VerifyError = AccountError | OtherError;

/**
 * HTTP 202, only when asked for (`paymentRequest`, or `recheck: true`): the
 * bank does not know the slip yet. Nothing charged; slipgate asks again for
 * a few minutes. Read the outcome with getVerification(verificationId), the
 * payment request, or the events (docs/payments.md#re-checks).
 */
export interface VerifyPending {
  status: 'pending';
  httpStatus: 202;
  verificationId: string;
  /** With `paymentRequest`: the request, shown `verifying` while the slip is checked. */
  paymentRequest?: { id: string; status: 'verifying' };
  message: string;
  creditsRemaining?: number;
}

export type VerifyResult<R = undefined> = VerifySuccess<R> | VerifyPending | VerifyError;

/** The slip being re-checked, as slipgate shows it (its reference masked). */
interface SlipBeingChecked {
  verificationId: string;
  sendingBank: string;
  transRef: string;
  since: string;
  deadline: string;
}

/** GET /api/v1/verifications/{id}: what became of a slip answered pending (docs/contract.md#re-checks). */
export type VerificationState =
  | (SlipBeingChecked & { status: 'pending'; paymentRequestId?: string })
  | { status: 'success'; verificationId: string; recordId: string; data?: SlipData; checks?: CheckResults; paymentRequest?: PaymentVerdict; paymentRequestId?: string }
  | (SlipBeingChecked & { status: 'unconfirmed'; reason: 'not_confirmed' | 'no_credit'; finishedAt: string; paymentRequestId?: string })
  | (SlipBeingChecked & { status: 'superseded' | 'refused'; finishedAt: string; paymentRequestId?: string });

export type VerificationResult = ({ httpStatus: 200 } & VerificationState) | VerifyError;

/**
 * 1026 from createPaymentRequest (HTTP 409): a request with this reference
 * exists for another amount, receiver or expiry (a reused order number).
 * Nothing was made or changed: use a new reference for a new order.
 */
export interface ReferenceConflict {
  status: 'error';
  kind: 'reference_conflict';
  httpStatus: 409;
  code: typeof ERROR_CODES.REFERENCE_CONFLICT;
  message: string;
}

/**
 * A payment request route's answer: `created` on the create that made it
 * (201), false when the reference was used before with the same body (200);
 * a ReferenceConflict when it was used with another.
 */
export type PaymentRequestResult = { status: 'success'; httpStatus: number; created: boolean; data: PaymentRequestData } | VerifyError | ReferenceConflict;
