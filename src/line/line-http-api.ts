// LINE's Messaging API over HTTP (got). The base URLs are settings
// (LINE_API_BASE_URL, LINE_DATA_API_BASE_URL), so tests and demos talk to
// `slipgate simulate-line`. Every call has its own deadline, follows no
// redirect (the bearer token must not travel on) and never rejects.
import { got, type Response } from 'got';
import type { LineApi, LineContent, LineSend } from '../domain/ports/line-api.js';

export interface LineHttpApiOptions {
  apiBaseUrl: string;
  dataApiBaseUrl: string;
  timeoutMs: number;
  userAgent: string;
}

const client = got.extend({ throwHttpErrors: false, followRedirect: false, retry: { limit: 0 } });

export function lineHttpApi(opts: LineHttpApiOptions): LineApi {
  const api = (path: string) => new URL(path, opts.apiBaseUrl).toString();
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'user-agent': opts.userAgent });
  const post = async (token: string, path: string, json: unknown): Promise<Response<string> | null> => {
    try {
      return await client.post(api(path), { json, headers: headers(token), timeout: { request: opts.timeoutMs } });
    } catch {
      return null;
    }
  };
  const sent = (res: Response<string> | null): LineSend => (res && res.statusCode >= 200 && res.statusCode < 300 ? 'sent' : 'failed');
  return {
    async content(token, messageId, maxBytes): Promise<LineContent> {
      const url = new URL(`/v2/bot/message/${encodeURIComponent(messageId)}/content`, opts.dataApiBaseUrl).toString();
      const request = client.get(url, { headers: headers(token), responseType: 'buffer', timeout: { request: opts.timeoutMs } });
      let tooLarge = false;
      // Read no further than the limit: a huge picture costs at most that much memory.
      request.on('downloadProgress', (progress: { transferred: number }) => {
        if (progress.transferred > maxBytes && !tooLarge) {
          tooLarge = true;
          request.cancel();
        }
      });
      try {
        const res = await request;
        if (res.statusCode === 404 || res.statusCode === 410) return { ok: false, problem: 'gone' };
        if (res.statusCode < 200 || res.statusCode >= 300) return { ok: false, problem: 'unavailable' };
        return res.body.length > maxBytes ? { ok: false, problem: 'too_large' } : { ok: true, bytes: res.body };
      } catch {
        return { ok: false, problem: tooLarge ? 'too_large' : 'unavailable' };
      }
    },
    async startLoading(token, chatId) {
      await post(token, '/v2/bot/chat/loading/start', { chatId, loadingSeconds: 20 });
    },
    async reply(token, replyToken, text) {
      const res = await post(token, '/v2/bot/message/reply', { replyToken, messages: [{ type: 'text', text }] });
      // LINE answers 400 "Invalid reply token" for a token that expired or was used.
      if (res?.statusCode === 400 && /reply token/i.test(res.body)) return 'invalid_token';
      return sent(res);
    },
    async push(token, to, text) {
      return sent(await post(token, '/v2/bot/message/push', { to, messages: [{ type: 'text', text }] }));
    },
  };
}
