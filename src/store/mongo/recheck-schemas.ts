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

export interface RecheckModels {
  rechecks: Model<RecheckDoc>;
}

export function defineRecheckModels(conn: Connection): RecheckModels {
  return { rechecks: conn.model<RecheckDoc>('Recheck', recheckSchema, 'rechecks') };
}
