// Re-checks on the SQL engines: the row shape, its mapping and the
// statements both engines run. Placeholders are `?`; the PostgreSQL adapter
// renumbers them. Times: SQLite epoch ms, PostgreSQL timestamptz.
import type { OpenRechecksQuery } from '../../domain/ports/store-rechecks.js';
import type { Recheck, RecheckOutcome } from '../../domain/rechecks/types.js';

export interface RecheckRow<Time> {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  payment_request_id: string | null;
  qrcode: string;
  sending_bank: string;
  trans_ref: string;
  options: string | null;
  created_at: Time;
  deadline: Time;
  next_attempt_at: Time;
  attempts: number;
  attempt_id: string | null;
  outcome: string | null;
  finished_at: Time | null;
  result: string | null;
  line_channel_id: string | null;
  line_user_id: string | null;
}

export function recheckMapper<Time>(date: (value: Time) => Date) {
  return (r: RecheckRow<Time>): Recheck => ({
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    requestId: r.request_id,
    paymentRequestId: r.payment_request_id,
    qrcode: r.qrcode,
    sendingBank: r.sending_bank,
    transRef: r.trans_ref,
    options: r.options,
    createdAt: date(r.created_at),
    deadline: date(r.deadline),
    nextAttemptAt: date(r.next_attempt_at),
    attempts: Number(r.attempts),
    attemptId: r.attempt_id,
    outcome: r.outcome as RecheckOutcome | null,
    finishedAt: r.finished_at === null ? null : date(r.finished_at),
    result: r.result,
    lineChannelId: r.line_channel_id ?? null,
    lineUserId: r.line_user_id ?? null,
  });
}

/** The insert, iff the account has fewer than the bound (the last parameter) unfinished re-checks. */
export const CREATE_RECHECK = `INSERT INTO rechecks (id, account_id, key_id, request_id, payment_request_id, qrcode, sending_bank, trans_ref, options,
    created_at, deadline, next_attempt_at, attempts, attempt_id, line_channel_id, line_user_id)
  SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?
  WHERE (SELECT count(*) FROM rechecks WHERE account_id = ? AND finished_at IS NULL) < ?`;

export const createValues = <Time>(r: Recheck, time: (at: Date) => Time, maxOpen: number): unknown[] => [
  r.id,
  r.accountId,
  r.keyId,
  r.requestId,
  r.paymentRequestId,
  r.qrcode,
  r.sendingBank,
  r.transRef,
  r.options,
  time(r.createdAt),
  time(r.deadline),
  time(r.nextAttemptAt),
  r.lineChannelId,
  r.lineUserId,
  r.accountId,
  maxOpen,
];

export const GET_RECHECK = 'SELECT * FROM rechecks WHERE id = ?';
const OPEN_OF_ACCOUNT = 'SELECT * FROM rechecks WHERE account_id = ? AND finished_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?';
// Served by rechecks_open_slip (unfinished rows alone): a chat's re-send reads it before any bank call.
const OPEN_OF_SLIP = 'SELECT * FROM rechecks WHERE account_id = ? AND trans_ref = ? AND sending_bank = ? AND finished_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?';
const OPEN_OF_REQUEST = 'SELECT * FROM rechecks WHERE payment_request_id = ? AND account_id = ? AND finished_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?';
export const COUNT_OPEN = 'SELECT count(*) AS n FROM rechecks WHERE finished_at IS NULL';
export const DUE_RECHECKS = 'SELECT * FROM rechecks WHERE finished_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?';
export const POSTPONE = 'UPDATE rechecks SET attempts = ?, next_attempt_at = ?, attempt_id = ? WHERE id = ? AND finished_at IS NULL';
// The LINE user id is kept only while the re-check is open: the pass that finishes it pushes from what it read.
export const FINISH = 'UPDATE rechecks SET outcome = ?, finished_at = ?, result = ?, line_user_id = NULL WHERE id = ? AND finished_at IS NULL';
export const RECORDED = 'SELECT 1 AS one FROM verify_transactions WHERE id = ?';

/** The read for openRechecks: of one request, of one slip, or of the whole account. */
export function openQuery(q: OpenRechecksQuery): { sql: string; params: unknown[] } {
  if (q.paymentRequestId !== undefined) return { sql: OPEN_OF_REQUEST, params: [q.paymentRequestId, q.accountId, q.limit] };
  if (q.slip) return { sql: OPEN_OF_SLIP, params: [q.accountId, q.slip.transRef, q.slip.sendingBank, q.limit] };
  return { sql: OPEN_OF_ACCOUNT, params: [q.accountId, q.limit] };
}
