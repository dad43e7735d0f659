// Storage port: personal data retention and erasure (domain/retention.ts).
import type { VerifiedSlip } from '../types.js';

/**
 * The records a retention pass covers (created before an instant) or an
 * erasure request (every record of one account, whatever its age).
 */
export type PersonalDataScope = { createdBefore: Date } | { accountId: string };

/** What a redaction keeps of a verification's personal fields (domain/redaction.ts decides). */
export type Redact = (personal: { qrcode: string; response: VerifiedSlip }) => { qrcode: string; response: VerifiedSlip; lineUserId: null };

/**
 * What a redaction keeps of a finished re-check's personal fields, as stored
 * (`result` and `options` are JSON text on every engine; domain/rechecks/redaction.ts decides).
 */
export type RedactRecheck = (personal: { qrcode: string; result: string | null; options: string | null }) => { qrcode: string; result: string | null; options: string | null };

/**
 * Where a retention or erasure pass has got to: the (createdAt, id) of the
 * last record its latest batch read (for webhook deliveries, `createdAt` is
 * the time the delivery finished: the order that pass deletes in). The next batch reads strictly after it
 * in that order, from an index range that starts there, so a pass reads each
 * record once however many batches it takes (not the whole scope again).
 */
export interface PassCursor {
  createdAt: Date;
  id: string;
}

/** One batch of a pass: at most `limit` records after `after` (null: from the start). */
export interface PassBatch {
  limit: number;
  after: PassCursor | null;
}

export interface PassBatchResult {
  /** Records this batch redacted or deleted. */
  changed: number;
  /** The last record it read, where the next batch starts; null when none was left: the pass is over. */
  last: PassCursor | null;
}

/** What the engine did after a pass so the removed values leave its own files too (see SECURITY.md for what remains elsewhere). */
export interface PurgeReport {
  /** False when the engine could not finish it now (SQLite: another connection kept the WAL in use); the next pass tries again. */
  complete: boolean;
  detail: string;
}

export interface PersonalDataCounts {
  /** Verification records in scope not yet redacted. */
  verifyTransactions: number;
  /** Failed-request records in scope (retention deletes them). */
  requestErrors: number;
  /** Finished re-checks in scope not yet redacted (open ones are never counted: they are still at work). */
  rechecks: number;
}

// Personal data retention and erasure (domain/retention.ts). Each call is
// one short write (one transaction on the SQL engines) over at most
// `limit` records in (createdAt, id) order after the batch's cursor, so the
// caller can yield between batches and verifications never wait long.
// Repeating a call is harmless: only records not yet redacted are
// redacted, and deleting is idempotent.
export interface RetentionStore {
  /** How many records a pass over `scope` would redact and delete (dry run). */
  countPersonalData(scope: PersonalDataScope): Promise<PersonalDataCounts>;
  /**
   * Replaces the personal fields of the unredacted verification records in
   * `scope` among the next `batch.limit` after `batch.after` with what
   * `redact` keeps, and sets redactedAt = `at`. Every other field (account,
   * key, amount, banks, reference, time…) stays.
   */
  redactVerifyTransactions(scope: PersonalDataScope, redact: Redact, at: Date, batch: PassBatch): Promise<PassBatchResult>;
  /** Deletes the failed-request records in `scope` among the next `batch.limit` after `batch.after`. */
  deleteRequestErrors(scope: PersonalDataScope, batch: PassBatch): Promise<PassBatchResult>;
  /**
   * Replaces the personal fields (qrcode, result, options) of the finished,
   * unredacted re-checks in `scope` (by createdAt, as the records are) among
   * the next `batch.limit` after `batch.after` with what `redact` keeps,
   * clears the LINE user id and sets redactedAt = `at`. A re-check still
   * open is never read or changed: it is at work and ends within
   * RECHECK_MINUTES; the next pass reaches it. Read from an index of the
   * finished, unredacted ones, so the redacted history costs a batch nothing.
   */
  redactFinishedRechecks(scope: PersonalDataScope, redact: RedactRecheck, at: Date, batch: PassBatch): Promise<PassBatchResult>;
  /**
   * Deletes the next `batch.limit` webhook deliveries after `batch.after`
   * that finished (delivered or failed) before `finishedBefore`, oldest
   * finished first, with their bodies and attempts. A pending or retrying
   * delivery has no finish time and is never deleted; one redelivered since
   * it finished is pending again and kept. Read from an index on the finish
   * time, so a batch costs the same whatever the history.
   */
  deleteFinishedWebhookDeliveries(finishedBefore: Date, batch: PassBatch): Promise<PassBatchResult>;
  /**
   * After a pass: makes the engine drop the old versions of what it
   * removed from its own files where it can (SQLite: checkpoint and truncate
   * the WAL; PostgreSQL: VACUUM; MongoDB: compact where allowed).
   */
  purgeRemovedData(): Promise<PurgeReport>;
  /**
   * The smallest id among live leases (PostgreSQL: judged by the database
   * clock), null when none is live. Lease ids are time-ordered, so this is
   * the longest-running process: the one that runs periodic retention.
   */
  firstLiveLease(now: Date): Promise<string | null>;
}
