// `slipgate simulate-line`: a LINE platform of the project's own, for tests
// and demos. It plays a channel's customers (sends signed webhook events to
// slipgate as LINE does, serves their pictures from a data API) and LINE's
// Messaging API (records replies, pushes and loading calls, refuses expired
// reply tokens). Knobs make it answer 404, 429 or 500, or never, for content.
//
// Control endpoints (JSON; ?user=U… picks the customer, ?group=C… (R… a room)
// sends in a group, ?expired=1 sends a reply token that is already dead):
// POST /sim/send-image (raw JPEG/PNG/WebP body, or ?qrcode=… to draw one),
// POST /sim/send-text {text}, POST /sim/send-sticker, POST /sim/join and
// POST /sim/leave ?group=… (the bot added to a group, or removed),
// POST /sim/redeliver {webhookEventId}, POST /sim/expire-reply-tokens,
// POST /sim/behavior {content, api}, GET /sim/log.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import { hangUntilGone, sendJson } from '../../upstream/simulator/http-io.js';
import { newEventId, newMessageId, newReplyToken, signBody, webhookBody, type SimEvent, type SimMessage } from './events.js';

export interface LineSimulatorOptions {
  port: number;
  host?: string;
  channelId: string;
  channelSecret: string;
  accessToken: string;
  /** slipgate's public listener, e.g. http://127.0.0.1:3000 (the channel's webhook path is added). */
  slipgateUrl: string;
}

/** What LINE's side did, in order: what a customer would have seen. */
export interface SimLogEntry {
  kind: 'reply' | 'push' | 'loading';
  to: string | null;
  replyToken?: string;
  text?: string;
  at: string;
}

export type ContentBehavior = 'ok' | '404' | '429' | '500' | 'hang';

export interface LineSimulator {
  url: string;
  log: SimLogEntry[];
  behavior: { content: ContentBehavior; api: 'ok' | '429' | '500' };
  /** Pictures slipgate downloaded (or tried to), in order of the requests. */
  contentRequests: string[];
  /** Points the channel's webhook at another slipgate (one started after the simulator). */
  setSlipgate(url: string): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

export async function startLineSimulator(opts: LineSimulatorOptions): Promise<LineSimulator> {
  const contents = new Map<string, Buffer>();
  const events = new Map<string, SimEvent>();
  const replyTokens = new Map<string, { userId: string; usable: boolean }>();
  const log: SimLogEntry[] = [];
  const behavior: LineSimulator['behavior'] = { content: 'ok', api: 'ok' };
  const contentRequests: string[] = [];
  let webhookUrl = new URL(`/line/webhook/${opts.channelId}`, opts.slipgateUrl).toString();

  /** Sends the event's body to slipgate, signed; answers what slipgate answered. */
  async function deliver(event: SimEvent, redelivery: boolean): Promise<{ status: number; body: string }> {
    const body = Buffer.from(webhookBody(opts.channelId, event, redelivery));
    const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-line-signature': signBody(opts.channelSecret, body) }, body });
    return { status: res.status, body: await res.text() };
  }

  /** `expired`: the reply token is dead on arrival, as when slipgate answers after LINE's time for it. */
  async function send(userId: string, message: SimMessage | undefined, expired: boolean, groupId?: string, type?: SimEvent['type']): Promise<Record<string, unknown>> {
    const event: SimEvent = { webhookEventId: newEventId(), replyToken: newReplyToken(), userId, message, timestamp: Date.now(), ...(groupId ? { groupId } : {}), ...(type ? { type } : {}) };
    events.set(event.webhookEventId, event);
    // A reply goes to the chat the event came from.
    replyTokens.set(event.replyToken, { userId: groupId ?? userId, usable: !expired });
    const answered = await deliver(event, false);
    return { webhookEventId: event.webhookEventId, messageId: message?.id, replyToken: event.replyToken, userId, slipgate: answered };
  }

  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${opts.accessToken}`;

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    const content = /^\/v2\/bot\/message\/([0-9]+)\/content$/.exec(path);
    if (req.method === 'GET' && content) {
      contentRequests.push(content[1]!);
      if (!authorized(req)) return sendJson(res, 401, { message: 'Authentication failed' });
      if (behavior.content === 'hang') return hangUntilGone(res);
      if (behavior.content !== 'ok') return sendJson(res, Number(behavior.content), { message: `simulated ${behavior.content}` });
      const bytes = contents.get(content[1]!);
      if (!bytes) return sendJson(res, 404, { message: 'Not found' });
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length });
      return void res.end(bytes);
    }
    if (req.method === 'POST' && path.startsWith('/v2/bot/')) {
      if (!authorized(req)) return sendJson(res, 401, { message: 'Authentication failed' });
      if (behavior.api !== 'ok') return sendJson(res, Number(behavior.api), { message: `simulated ${behavior.api}` });
      const body = JSON.parse((await readAll(req)).toString('utf8')) as Record<string, unknown>;
      const text = (body.messages as { text?: string }[] | undefined)?.map((m) => m.text ?? '').join('\n');
      const at = new Date().toISOString();
      if (path === '/v2/bot/chat/loading/start') {
        log.push({ kind: 'loading', to: String(body.chatId), at });
        return sendJson(res, 202, {});
      }
      if (path === '/v2/bot/message/reply') {
        const token = replyTokens.get(String(body.replyToken));
        if (!token?.usable) return sendJson(res, 400, { message: 'Invalid reply token' });
        token.usable = false;
        log.push({ kind: 'reply', to: token.userId, replyToken: String(body.replyToken), text: text ?? '', at });
        return sendJson(res, 200, { sentMessages: [] });
      }
      if (path === '/v2/bot/message/push') {
        log.push({ kind: 'push', to: String(body.to), text: text ?? '', at });
        return sendJson(res, 200, { sentMessages: [] });
      }
      return sendJson(res, 404, { message: 'Not found' });
    }
    return control(req, res, url);
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const userId = url.searchParams.get('user') ?? 'U00000000000000000000000000000001';
    const expired = url.searchParams.get('expired') === '1';
    const group = url.searchParams.get('group') ?? undefined;
    const action = `${req.method} ${url.pathname}`;
    switch (action) {
      case 'GET /sim/log':
        return sendJson(res, 200, log);
      case 'POST /sim/send-image': {
        const qrcode = url.searchParams.get('qrcode');
        const bytes = qrcode ? await QRCode.toBuffer(qrcode, { type: 'png', width: 360, margin: 4 }) : await readAll(req);
        const id = newMessageId();
        contents.set(id, bytes);
        return sendJson(res, 200, await send(userId, { type: 'image', id }, expired, group));
      }
      case 'POST /sim/send-text': {
        const body = JSON.parse((await readAll(req)).toString('utf8')) as { text?: unknown };
        return sendJson(res, 200, await send(userId, { type: 'text', id: newMessageId(), text: String(body.text ?? '') }, expired, group));
      }
      case 'POST /sim/send-sticker':
        return sendJson(res, 200, await send(userId, { type: 'sticker', id: newMessageId() }, expired, group));
      case 'POST /sim/redeliver': {
        const body = JSON.parse((await readAll(req)).toString('utf8')) as { webhookEventId?: unknown };
        const event = events.get(String(body.webhookEventId));
        if (!event) return sendJson(res, 404, { message: 'no such event' });
        return sendJson(res, 200, { webhookEventId: event.webhookEventId, slipgate: await deliver(event, true) });
      }
      case 'POST /sim/join':
      case 'POST /sim/leave':
        if (!group) return sendJson(res, 400, { message: 'group=C… (or R… for a room) is required' });
        return sendJson(res, 200, await send('', undefined, false, group, url.pathname === '/sim/join' ? 'join' : 'leave'));
      case 'POST /sim/expire-reply-tokens':
        for (const token of replyTokens.values()) token.usable = false;
        return sendJson(res, 200, { expired: replyTokens.size });
      case 'POST /sim/behavior': {
        const body = JSON.parse((await readAll(req)).toString('utf8')) as Partial<LineSimulator['behavior']>;
        if (body.content && ['ok', '404', '429', '500', 'hang'].includes(body.content)) behavior.content = body.content;
        if (body.api && ['ok', '429', '500'].includes(body.api)) behavior.api = body.api;
        return sendJson(res, 200, behavior);
      }
    }
    return sendJson(res, 404, { message: 'Not found' });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    route(req, res, url).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 400, { message: err instanceof Error ? err.message : 'bad request' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    log,
    behavior,
    contentRequests,
    setSlipgate: (url) => void (webhookUrl = new URL(`/line/webhook/${opts.channelId}`, url).toString()),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

