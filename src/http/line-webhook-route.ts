// POST /line/webhook/<channel id> on the public listener (docs/line.md):
// LINE's servers must reach it. The raw body is read, the signature checked
// over those bytes, and only then is JSON parsed; LINE is answered 200 at
// once and the events are worked off after (LineBridge). Every refusal gets
// one answer, whatever was wrong (a caller learns nothing about which
// channels exist), is counted by the per-IP limit before it is answered, and
// is logged at most once a minute per address (domain/line/refusal-log.ts).
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { LineBridge } from '../domain/line/bridge.js';
import { parseWebhookBody } from '../domain/line/events.js';
import { notFound, sendError } from './json-errors.js';

const LINE_WEBHOOK_PATH = '/line/webhook/:channelId';
/** LINE's webhook bodies are a few KB (events carry message ids, not content). */
const MAX_WEBHOOK_BYTES = 1_048_576;
const CHANNEL_ID = /^[0-9]{1,20}$/;

/**
 * `byIp` is the public listener's per-IP limit (null: off). Signed requests
 * are not counted by it: every request of every channel comes from LINE's few
 * addresses. Refused ones are, so a flood of them is limited like any other.
 */
export function mountLineWebhook(app: Express, bridge: LineBridge, logger: Logger, byIp: RequestHandler | null): void {
  const raw = express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES });
  app.post(LINE_WEBHOOK_PATH, raw, async (req: Request, res: Response, next) => {
    const channelId = String(req.params.channelId);
    // Not a LINE channel id: the same 404 as any path that does not exist.
    if (!CHANNEL_ID.test(channelId)) return notFound(req, res, next);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const checked = await bridge.check(channelId, req.headers['x-line-signature'], body);
    if (!checked.ok) {
      const requestId = res.locals.requestId as string;
      const refuse = () => {
        bridge.refused({ address: ipKeyGenerator(req.ip ?? ''), channelId, refused: checked.refused, requestId });
        sendError(res, 401, 'invalid signature');
      };
      // Over the limit, the limiter answers 429 and refuse is not called.
      return byIp ? byIp(req, res, refuse) : refuse();
    }
    const parsed = parseWebhookBody(body);
    if (!parsed.ok) return sendError(res, 400, parsed.message);
    if (parsed.skipped > 0) logger.warn({ channelId, skipped: parsed.skipped }, 'LINE webhook events without the fields slipgate needs were skipped');
    // LINE wants its answer within seconds; the slips take as long as the bank does.
    res.status(200).json({});
    bridge.accept(checked.channel, parsed.events);
  });
  app.all(LINE_WEBHOOK_PATH, (_req, res) => {
    res.setHeader('allow', 'POST');
    sendError(res, 405, 'method not allowed; use POST');
  });
}
