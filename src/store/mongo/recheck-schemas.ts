// Re-checks on MongoDB (domain/rechecks): one document per slip being re-checked.
import { Schema, type Connection, type Model } from 'mongoose';
import { OPTIONS, date, optDate, optStr, str } from './schema-fields.js';

export interface RecheckDoc {
  _id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  paymentRequestId: string | null;
  qrcode: string;
  sendingBank: string;
  transRef: string;
  options: string | null;
  createdAt: Date;
  deadline: Date;
  nextAttemptAt: Date;
  attempts: number;
  attemptId: string | null;
  outcome: string | null;
  finishedAt: Date | null;
  result: string | null;
  lineChannelId: string | null;
  lineUserId: string | null;
  /** When retention or an erasure removed its personal fields (finished ones only); absent until then. */
  redactedAt?: Date | null;
}

const recheckSchema = new Schema<RecheckDoc>(
  {
    _id: str,
    accountId: str,
    keyId: str,
    requestId: str,
    paymentRequestId: optStr,
    qrcode: str,
    sendingBank: str,
    transRef: str,
    options: optStr,
    createdAt: date,
    deadline: date,
    nextAttemptAt: date,
    attempts: { type: Number, required: true },
    attemptId: optStr,
    outcome: optStr,
    finishedAt: optDate,
    result: optStr,
    lineChannelId: optStr,
    lineUserId: optStr,
    redactedAt: { type: Date, required: false },
  },
  OPTIONS,
);
// FerretDB has no partial indexes: unfinished re-checks (finishedAt null)
// lead each index instead, so the worker's and GET's reads skip the finished.
recheckSchema.index({ finishedAt: 1, nextAttemptAt: 1 });
recheckSchema.index({ accountId: 1, finishedAt: 1, createdAt: -1 });
recheckSchema.index({ paymentRequestId: 1, finishedAt: 1 });
// A chat's re-send of a slip being re-checked is answered from it (line/earlier-slip.ts).
recheckSchema.index({ accountId: 1, transRef: 1, finishedAt: 1 });
// Retention and erasure redact the finished ones not redacted yet, oldest
// first from a cursor (domain/retention.ts): equality on redactedAt (and the
// account, for an erasure), then the pass's order, so a batch is an index
// range with no sort. finishedAt ends each key: the open ones in the range
// (a few, minutes old, RECHECK_MAX_PER_ACCOUNT at most per account) are
// passed over on the index, never fetched.
recheckSchema.index({ redactedAt: 1, createdAt: 1, _id: 1, finishedAt: 1 });
recheckSchema.index({ accountId: 1, redactedAt: 1, createdAt: 1, _id: 1, finishedAt: 1 });

export interface RecheckModels {
  rechecks: Model<RecheckDoc>;
}

export function defineRecheckModels(conn: Connection): RecheckModels {
  return { rechecks: conn.model<RecheckDoc>('Recheck', recheckSchema, 'rechecks') };
}
