// The parts of a LINE webhook body slipgate acts on, checked where they
// enter (docs: developers.line.biz Messaging API reference, "Webhook Event
// Objects"). Anything else in an event is ignored; an event without the
// parts its handling needs is skipped, never guessed at.

export type LineMessage =
  | { type: 'image'; id: string; fromLine: boolean }
  | { type: 'text'; id: string; text: string }
  | { type: 'other'; id: string };

export interface LineEvent {
  webhookEventId: string;
  type: string;
  /** Where an answer goes: the user, group or room (push), and who sent it (the per-user limit, the records). */
  chatId: string;
  /** Empty on join and leave events: they come from the group, not a user. */
  userId: string;
  /** The group or room of a join or leave event (the bot was added to it, or left it). */
  group: { id: string; kind: 'group' | 'room' } | null;
  /** A one-to-one chat: LINE's loading animation exists only there. */
  oneToOne: boolean;
  replyToken: string | null;
  message: LineMessage | null;
  isRedelivery: boolean;
}

export type ParsedBody = { ok: true; events: LineEvent[]; skipped: number } | { ok: false; message: string };

const ID = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_TEXT = 5000;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const idOf = (v: unknown): string | null => (typeof v === 'string' && ID.test(v) ? v : null);

export function parseWebhookBody(raw: Buffer): ParsedBody {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, message: 'body is not valid JSON' };
  }
  if (!isObject(body) || !Array.isArray(body.events)) return { ok: false, message: 'body must be an object with an events array' };
  const events = body.events.map(parseEvent);
  const kept = events.filter((e): e is LineEvent => e !== null);
  return { ok: true, events: kept, skipped: events.length - kept.length };
}

function parseEvent(value: unknown): LineEvent | null {
  if (!isObject(value) || typeof value.type !== 'string') return null;
  const webhookEventId = idOf(value.webhookEventId);
  const source = isObject(value.source) ? value.source : null;
  if (!webhookEventId || !source) return null;
  const userId = idOf(source.userId);
  const groupId = source.type === 'group' ? idOf(source.groupId) : source.type === 'room' ? idOf(source.roomId) : null;
  const membership = value.type === 'join' || value.type === 'leave';
  if (membership ? !groupId : !userId) return null;
  const chatId = idOf(source.groupId) ?? idOf(source.roomId) ?? userId!;
  const delivery = isObject(value.deliveryContext) ? value.deliveryContext : {};
  return {
    webhookEventId,
    type: value.type,
    chatId,
    userId: userId ?? '',
    group: membership && groupId ? { id: groupId, kind: source.type === 'room' ? 'room' : 'group' } : null,
    oneToOne: source.type === 'user',
    replyToken: typeof value.replyToken === 'string' && value.replyToken.length <= 256 ? value.replyToken : null,
    message: value.type === 'message' ? parseMessage(value.message) : null,
    isRedelivery: delivery.isRedelivery === true,
  };
}

function parseMessage(value: unknown): LineMessage | null {
  if (!isObject(value)) return null;
  const id = idOf(value.id);
  if (!id) return null;
  if (value.type === 'image') {
    const provider = isObject(value.contentProvider) ? value.contentProvider.type : 'line';
    return { type: 'image', id, fromLine: provider === 'line' };
  }
  if (value.type === 'text' && typeof value.text === 'string') return { type: 'text', id, text: value.text.slice(0, MAX_TEXT) };
  return { type: 'other', id };
}
