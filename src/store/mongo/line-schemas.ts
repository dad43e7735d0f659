// LINE channels on MongoDB, by LINE's channel id, and the webhook events already taken.
import { Schema, type Connection, type Model } from 'mongoose';
import type { LineChannelDoc, LineEventDoc, LineGroupDoc, LineStaffTargetDoc } from './doc-types.js';
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

const lineStaffTargetSchema = new Schema<LineStaffTargetDoc>({ _id: str, channelId: str, targetId: str, createdAt: date }, OPTIONS);
lineStaffTargetSchema.index({ channelId: 1, createdAt: 1 });
const lineGroupSchema = new Schema<LineGroupDoc>({ _id: str, channelId: str, groupId: str, kind: str, joinedAt: date, leftAt: { type: Date, default: null } }, OPTIONS);
lineGroupSchema.index({ channelId: 1, joinedAt: 1 });

export interface LineModels {
  lineChannels: Model<LineChannelDoc>;
  lineEvents: Model<LineEventDoc>;
  lineStaffTargets: Model<LineStaffTargetDoc>;
  lineGroups: Model<LineGroupDoc>;
}

export function defineLineModels(conn: Connection): LineModels {
  return {
    lineChannels: conn.model<LineChannelDoc>('LineChannel', lineChannelSchema, 'line_channels'),
    lineEvents: conn.model<LineEventDoc>('LineEvent', lineEventSchema, 'line_events'),
    lineStaffTargets: conn.model<LineStaffTargetDoc>('LineStaffTarget', lineStaffTargetSchema, 'line_staff_targets'),
    lineGroups: conn.model<LineGroupDoc>('LineGroup', lineGroupSchema, 'line_groups'),
  };
}
