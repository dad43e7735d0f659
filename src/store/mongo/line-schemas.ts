// LINE channels on MongoDB, by LINE's channel id, and the webhook events already taken.
import { Schema, type Connection, type Model } from 'mongoose';
import type { LineChannelDoc, LineEventDoc } from './docs.js';
import { OPTIONS, date, str } from './schema-fields.js';

const lineChannelSchema = new Schema<LineChannelDoc>(
  {
    _id: str,
    accountId: str,
    secret: str,
    accessToken: str,
    lang: str,
    checks: { type: Boolean, required: true },
    matchPaymentRequests: { type: Boolean, required: true },
    hints: { type: Boolean, default: false },
    createdAt: date,
  },
  OPTIONS,
);
lineChannelSchema.index({ accountId: 1, createdAt: 1 });
const lineEventSchema = new Schema<LineEventDoc>({ _id: str, createdAt: date }, OPTIONS);
// Old claims are pruned by time (LineBridge).
lineEventSchema.index({ createdAt: 1 });

export interface LineModels {
  lineChannels: Model<LineChannelDoc>;
  lineEvents: Model<LineEventDoc>;
}

export function defineLineModels(conn: Connection): LineModels {
  return {
    lineChannels: conn.model<LineChannelDoc>('LineChannel', lineChannelSchema, 'line_channels'),
    lineEvents: conn.model<LineEventDoc>('LineEvent', lineEventSchema, 'line_events'),
  };
}
