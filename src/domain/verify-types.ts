// What goes into a verification and what comes out of it.
import type { CheckResults } from './checks.js';
import type { ErrorKind, VerifiedSlip } from './types.js';
import type { BodyProblem } from './verify-request.js';

export interface VerifyInput {
  apiKey: string | undefined;
  contentType: string | undefined;
  rawBody: Buffer;
  /** Set when the body was not read (too large, bad encoding): answered after the key checks. */
  bodyProblem?: BodyProblem;
  /** Bodies are read up to the image limit; only an image body may be larger than this. */
  maxQrcodeBodyBytes?: number;
  requestId: string;
  /** The client's address (after TRUST_PROXY_HOPS), matched against the key's allowed ranges. */
  clientIp?: string;
}

export type VerifyBody =
  | { status: 'success'; data: VerifiedSlip; message: string; qrcode: string; checks?: CheckResults }
  | { status: 'error'; code?: number; message: string };

export interface VerifyOutcome {
  httpStatus: number;
  body: VerifyBody;
  /** Why a verification failed (never sent; metrics and logs). */
  kind?: ErrorKind;
  /** The account's credits after this request; set whenever the key resolved to a live account. */
  creditsRemaining?: number;
}
