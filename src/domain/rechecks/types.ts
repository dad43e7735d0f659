// Re-checks (docs/payments.md#re-checks): a slip the bank did not know yet
// (or could not answer for) when it was sent for a payment request, or with
// `"recheck": true`, kept and asked again with backoff until its deadline.
// Everything a re-check needs to be redone is stored, so a restart loses
// none; the slip is kept as its QR text (sending bank and transaction
// reference), never as a picture.

/** How a re-check ended. */
export const RECHECK_OUTCOMES = [
  /** The bank confirmed the slip and it was charged (with its payment request's verdict, when it named one). */
  'verified',
  /** The bank confirmed it but the account's receiver policy refused it (free, like a direct verify). */
  'refused',
  /** Another slip paid its payment request first: nothing charged. */
  'superseded',
  /** The deadline passed without the bank confirming the slip: nothing charged. */
  'unconfirmed',
  /** The bank confirmed it but the account had no credit left until the deadline: nothing charged. */
  'no_credit',
] as const;
export type RecheckOutcome = (typeof RECHECK_OUTCOMES)[number];

export interface Recheck {
  /** The verification id the caller was given with the 202 (its first attempt's record has it too). */
  id: string;
  accountId: string;
  /** Who sent it, as records name it (an API key id, `checkout:<request id>`). */
  keyId: string;
  /** The x-request-id of the request that started it. */
  requestId: string;
  paymentRequestId: string | null;
  /** The slip's QR text: all the bank needs (sending bank and transaction reference). */
  qrcode: string;
  sendingBank: string;
  transRef: string;
  /** The verify options to redo it with (the `checks` object as sent, JSON); null when none. */
  options: string | null;
  createdAt: Date;
  /** createdAt + RECHECK_MINUTES: unconfirmed after it. */
  deadline: Date;
  nextAttemptAt: Date;
  /** Attempts after the first, whatever they found. */
  attempts: number;
  /**
   * The id of the verification the latest attempt the bank confirmed was
   * recorded under (its hold's id): written before that hold, so that after a
   * crash the next pass sees whether that settle committed.
   */
  attemptId: string | null;
  outcome: RecheckOutcome | null;
  finishedAt: Date | null;
  /** On `verified`: the success answer's fields (slip, checks, payment verdict), JSON. */
  result: string | null;
  /**
   * A slip sent in a LINE chat (docs/line.md#a-bank-that-publishes-late):
   * the channel and the customer its result is pushed to once it is known;
   * null for every other way in.
   */
  lineChannelId: string | null;
  lineUserId: string | null;
}

/** How a re-check is finished. */
export interface RecheckFinish {
  outcome: RecheckOutcome;
  at: Date;
  result?: string | null;
}
