// Refused LINE webhook requests (issue #61, item 8): one answer whatever was
// wrong, so a caller cannot tell which channels exist; counted by the per-IP
// limit before they are answered; and logged at most once a minute per
// address, so a flood of them cannot fill the log.
import { createHmac, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { rigsOfThisFile } from '../helpers/line.js';

const rig = rigsOfThisFile();
const sign = (secret: string, bytes: Buffer) => createHmac('sha256', secret).update(bytes).digest('base64');
const post = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
  return { status: res.status, body: await res.text() };
};
const body = Buffer.from(JSON.stringify({ events: [] }));

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

describe('LINE webhook refusals', () => {
  it('answers an unknown channel exactly as a wrong or missing signature', { timeout: 30_000 }, async () => {
    const r = await rig();
    const unknownUrl = `${r.app.publicUrl}/line/webhook/9999999999`;
    const wrong = await post(r.webhookUrl, body, { 'x-line-signature': sign(randomBytes(16).toString('hex'), body) });
    expect(wrong).toEqual({ status: 401, body: '{"status":"error","message":"invalid signature"}' });
    // Signed with the real channel's secret, or any other: the channel is not connected.
    expect(await post(unknownUrl, body, { 'x-line-signature': sign(r.channelSecret, body) })).toEqual(wrong);
    expect(await post(unknownUrl, body, { 'x-line-signature': sign(randomBytes(16).toString('hex'), body) })).toEqual(wrong);
    expect(await post(unknownUrl, body)).toEqual(wrong);
    expect(await post(r.webhookUrl, body)).toEqual(wrong);
  });

  it('counts refusals by the per-IP limit, not the signed requests, and logs one line a minute per address', { timeout: 30_000 }, async () => {
    const { lines, logger } = logLines();
    const r = await rig({ logger, env: { RATE_LIMIT_PER_IP_PER_MIN: '5' } });
    const forged = { 'x-line-signature': sign(randomBytes(16).toString('hex'), body) };
    const signed = { 'x-line-signature': sign(r.channelSecret, body) };
    // Signed requests from the same address are not counted: LINE sends every channel's.
    for (let i = 0; i < 8; i++) expect((await post(r.webhookUrl, body, signed)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await post(i % 2 ? r.webhookUrl : `${r.app.publicUrl}/line/webhook/9999999999`, body, forged)).status);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    // The limit is the listener's one: the address is limited on the other routes too.
    expect((await fetch(`${r.app.publicUrl}/healthz`)).status).toBe(429);
    // LINE itself is still served.
    expect((await post(r.webhookUrl, body, signed)).status).toBe(200);
    // One line (two when a clock minute ended during the test), not one per refusal.
    const refusedLines = lines.filter((l) => l.msg === 'LINE webhook refused');
    expect(refusedLines.length).toBeGreaterThanOrEqual(1);
    expect(refusedLines.length).toBeLessThanOrEqual(2);
  });
});
