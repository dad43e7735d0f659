// What the simulated LINE platform sends: webhook bodies shaped as LINE's
// (developers.line.biz, "Webhook Event Objects"), signed as LINE signs them.
import { randomBytes, randomUUID } from 'node:crypto';
import { lineSignature } from '../../domain/line/signature.js';

export type SimMessage = { type: 'image'; id: string } | { type: 'text'; id: string; text: string } | { type: 'sticker'; id: string };

export interface SimEvent {
  webhookEventId: string;
  replyToken: string;
  /** Empty on join and leave events (they come from the group). */
  userId: string;
  /** A message in a group (C…) or room (R…), or the group the bot joined or left; absent: a one-to-one chat. */
  groupId?: string;
  /** Absent on join and leave events. */
  message?: SimMessage;
  type?: 'message' | 'join' | 'leave';
  timestamp: number;
}

function source(event: SimEvent): Record<string, string> {
  if (!event.groupId) return { type: 'user', userId: event.userId };
  const kind = event.groupId.startsWith('R') ? 'room' : 'group';
  return { type: kind, [`${kind}Id`]: event.groupId, ...(event.userId ? { userId: event.userId } : {}) };
}

/** LINE's ids: a ULID-like event id, digits for messages, U + 32 hex for users. */
export const newEventId = () => `01${randomBytes(12).toString('hex').toUpperCase()}`;
export const newMessageId = () => String(BigInt(`0x${randomBytes(7).toString('hex')}`));
export const newReplyToken = () => randomUUID().replaceAll('-', '');

export function webhookBody(destination: string, event: SimEvent, redelivery: boolean): string {
  const message = event.message?.type === 'image' ? { ...event.message, contentProvider: { type: 'line' } } : event.message;
  const type = event.type ?? 'message';
  return JSON.stringify({
    destination,
    events: [
      {
        type,
        mode: 'active',
        timestamp: event.timestamp,
        source: source(event),
        webhookEventId: event.webhookEventId,
        deliveryContext: { isRedelivery: redelivery },
        // LINE sends no reply token with a leave event.
        ...(type === 'leave' ? {} : { replyToken: event.replyToken }),
        ...(message ? { message } : {}),
      },
    ],
  });
}

export function signBody(channelSecret: string, body: Buffer): string {
  return lineSignature(channelSecret, body).toString('base64');
}
