// What the simulated LINE platform sends: webhook bodies shaped as LINE's
// (developers.line.biz, "Webhook Event Objects"), signed as LINE signs them.
import { randomBytes, randomUUID } from 'node:crypto';
import { lineSignature } from '../../domain/line/signature.js';

export type SimMessage = { type: 'image'; id: string } | { type: 'text'; id: string; text: string } | { type: 'sticker'; id: string };

export interface SimEvent {
  webhookEventId: string;
  replyToken: string;
  userId: string;
  message: SimMessage;
  timestamp: number;
}

/** LINE's ids: a ULID-like event id, digits for messages, U + 32 hex for users. */
export const newEventId = () => `01${randomBytes(12).toString('hex').toUpperCase()}`;
export const newMessageId = () => String(BigInt(`0x${randomBytes(7).toString('hex')}`));
export const newReplyToken = () => randomUUID().replaceAll('-', '');

export function webhookBody(destination: string, event: SimEvent, redelivery: boolean): string {
  const message = event.message.type === 'image' ? { ...event.message, contentProvider: { type: 'line' } } : event.message;
  return JSON.stringify({
    destination,
    events: [
      {
        type: 'message',
        mode: 'active',
        timestamp: event.timestamp,
        source: { type: 'user', userId: event.userId },
        webhookEventId: event.webhookEventId,
        deliveryContext: { isRedelivery: redelivery },
        replyToken: event.replyToken,
        message,
      },
    ],
  });
}

export function signBody(channelSecret: string, body: Buffer): string {
  return lineSignature(channelSecret, body).toString('base64');
}
