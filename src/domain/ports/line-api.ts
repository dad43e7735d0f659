// LINE's Messaging API as the bridge needs it (src/line/ is the HTTP
// adapter; its base URLs are settings, so tests and demos use the simulator).

export type LineContent = { ok: true; bytes: Buffer } | { ok: false; problem: 'too_large' | 'gone' | 'unavailable' };

/** `invalid_token`: the reply token expired or was used; the bridge pushes instead. */
export type LineSend = 'sent' | 'invalid_token' | 'failed';

export interface LineApi {
  /** The message's content, read up to `maxBytes` (more: too_large, nothing kept). */
  content(accessToken: string, messageId: string, maxBytes: number): Promise<LineContent>;
  /** Best effort: the animation is a courtesy, its failure changes nothing. */
  startLoading(accessToken: string, chatId: string): Promise<void>;
  reply(accessToken: string, replyToken: string, text: string): Promise<LineSend>;
  push(accessToken: string, to: string, text: string): Promise<LineSend>;
}
