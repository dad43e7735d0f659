// What goes into a verification and what comes out of it. The outcome says
// what happened in the domain's terms; src/http/verify-answer.ts alone turns
// it into a status, headers and a JSON body.
import type { CheckRequest, CheckResults } from '../checks/run.js';
import type { AccountErrorKind } from '../errors.js';
import type { ErrorKind, VerifiedSlip } from '../types.js';
import type { PaymentVerdict } from '../payments/paying.js';
import type { PaymentRequest } from '../payments/types.js';
import type { UpstreamResult } from '../ports/upstream.js';

/** Why a request body was refused before anything about the slip was looked at. */
export interface BodyProblem {
  problem: 'too_large' | 'unsupported_media_type' | 'invalid';
  message: string;
}

/**
 * A slip picture sent as bytes (the raw body, or the `image` part of a
 * multipart form) and the options sent beside it (query parameters or form
 * fields), each name with its value, in order, repeats included.
 */
export interface PictureBody {
  bytes: Buffer;
  options: Array<[name: string, value: string]>;
}

export type BodyRead =
  | { ok: true; contentType: string | undefined; bytes: Buffer }
  | { ok: true; picture: PictureBody }
  | { ok: false; problem: BodyProblem }
  /** Not read: too many picture bytes are held already (IMAGE_BYTES_IN_FLIGHT); answered busy, the body unread. */
  | { ok: false; busy: string };

export interface VerifyInput {
  apiKey: string | undefined;
  /**
   * Reads the body. Called only once the key checks passed, so a request
   * with a missing, unknown or IP-refused key never costs its body's bytes.
   */
  readBody: () => Promise<BodyRead>;
  /** Bodies are read up to the image limit; only an image body may be larger than this. */
  maxQrcodeBodyBytes?: number;
  requestId: string;
  /** The client's address (after TRUST_PROXY_HOPS), matched against the key's allowed ranges. */
  clientIp?: string;
  /** The address as abuse limits count it (an IPv6 client by its /56); default clientIp. */
  clientAddress?: string;
  /** Where clientIp came from (the connection, or which X-Forwarded-For hop), said when a key refuses it (1024). */
  clientIpFrom?: string;
  /** Filled in as the verification learns it, for the request's log line. */
  trace?: VerifyTrace;
}

/** A slip a customer sent through a LINE channel (domain/line): the channel's account pays. */
export interface ChannelVerifyInput {
  accountId: string;
  /** `line:<channel id>`: what the records name instead of an API key. */
  keyId: string;
  lineUserId: string;
  requestId: string;
  slip: { qrcode: string; image?: undefined } | { qrcode?: undefined; image: Buffer };
  /** The checks the channel asks for (the duplicate check when its checks are on). */
  checks?: CheckRequest;
  /**
   * The payment request the confirmed slip is offered to, chosen from the
   * bank's answer (the chat names no order); none: no request is paid.
   */
  paymentRequestFor?: (slip: VerifiedSlip) => Promise<PaymentRequest | undefined>;
  /**
   * The channel, when a slip its bank does not know yet is kept for
   * re-checks and its result pushed to the customer (docs/line.md#a-bank-that-publishes-late).
   */
  recheckChannelId?: string;
}

/**
 * A plain verify's opt-in to re-checks (or a LINE chat's slip, kept with the
 * chat its result is pushed to), or a re-check's bank answer already asked
 * (VerificationService.recheckSlip).
 */
export type Late = { optIn: boolean; line?: LineChat } | { answered: Extract<UpstreamResult, { ok: true }> };

/** The LINE channel and customer a slip came from. */
export interface LineChat {
  channelId: string;
  userId: string;
}

/** Who asked and which bank domain answered: what a support call needs from the log. */
export interface VerifyTrace {
  accountId?: string;
  keyId?: string;
  /** The bank domain (UPSTREAMS name) that answered, or null when none could. */
  upstream?: string | null;
  /** How long the bank network took, retries included. */
  upstreamMs?: number;
  /** On 1024 only: the address the key refused and where it came from. */
  clientIp?: string | null;
  clientIpFrom?: string | null;
}

/** The account's credits after the request, whenever the key resolved to a live account. */
interface Credits {
  creditsRemaining?: number;
}

export type VerifyOutcome =
  | { kind: 'verified'; slip: VerifiedSlip; qrcode: string; checks?: CheckResults; creditsRemaining: number; paymentRequest?: PaymentVerdict }
  /** The network said no (or could not say): released, recorded, free. */
  | ({ kind: 'failed'; reason: ErrorKind; message: string } & Credits)
  /** `slip`: what the bank said of a slip the receiver policy refused (for the staff's note; never in the API's answer). */
  | ({ kind: 'account_error'; error: AccountErrorKind; slip?: VerifiedSlip } & Credits)
  | ({ kind: 'bad_request' } & BodyProblem & Credits)
  /** A limit that frees within seconds (the account's in-flight cap, the image queue). */
  | ({ kind: 'busy'; message: string } & Credits)
  /** The client's address is braked after too many refused authentications, until its window ends. */
  | { kind: 'throttled'; message: string; retryAfterSeconds: number }
  /** Nothing was charged and retrying later is safe. */
  | ({ kind: 'unavailable'; message: string } & Credits)
  /**
   * The bank did not know the slip yet, or could not answer (a payment
   * request, or `"recheck": true`): released, kept and asked again
   * (domain/rechecks); nothing charged now.
   */
  | ({ kind: 'pending'; verificationId: string; paymentRequest?: { id: string; status: 'verifying' } } & Credits)
  /** As `pending`, but the account has RECHECK_MAX_PER_ACCOUNT slips being re-checked already: released, not kept. */
  | ({ kind: 'recheck_limit'; message: string } & Credits)
  /** The bank said yes but recording the charge failed: it may have committed. */
  | { kind: 'outcome_unknown' };
