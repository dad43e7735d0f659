// The key checks come before the body is read: a refused key is answered
// while its (large) body has not even been sent, and the connection serves
// the next request afterwards. A good key's body is read in full.
import { request, Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';

const THREE_MIB = 3 * 1024 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** Sends the headers of a `length`-byte body and then only `sent` bytes of it, and waits for the answer. */
function postPartly(url: string, agent: Agent, headers: Record<string, string>, length: number, sent: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        req.destroy();
      });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
    req.write(sent);
  });
}

describe('the verify body is read only after the key checks', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it.each([
    ['no key', {}, { status: 401, body: { status: 'error', code: 1020, message: 'api key is missing' } }],
    ['an unknown key', { 'x-api-key': 'slip_unknown' }, { status: 401, body: { status: 'error', code: 1021, message: 'invalid api key' } }],
  ])('answers %s before a 3 MiB body has been sent', async (_name, headers, expected) => {
    const agent = new Agent({ keepAlive: false });
    const answer = await postPartly(app.publicUrl + '/api/v1/verify', agent, headers as Record<string, string>, THREE_MIB, Buffer.from('{"qrcode":"'));
    expect(answer).toStrictEqual(expected);
    agent.destroy();
  });

  it('waits for the whole body of a good key, and then verifies it', async () => {
    const { apiKey } = await app.account(2);
    const body = Buffer.from(JSON.stringify({ qrcode: sandboxQr({ amount: 5 }) }));
    const half = body.subarray(0, 20);
    const agent = new Agent({ keepAlive: false });
    // Only part of the body is sent: no answer may come before the rest.
    let answered = false;
    const pending = new Promise<Answer>((resolve, reject) => {
      const req = request(app.publicUrl + '/api/v1/verify', {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-api-key': apiKey },
      });
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.write(half);
      // Another verification, sent whole on another connection, is answered
      // while this one still waits for the rest of its body.
      void app
        .post({ qrcode: sandboxQr({ amount: 6 }) }, { 'x-api-key': apiKey })
        .then((other) => {
          expect(other.status).toBe(200);
          expect(answered).toBe(false);
          req.end(body.subarray(half.length));
        })
        .catch(reject);
    });
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'success', data: { amount: 5 } });
    agent.destroy();
  });

  it('keeps a keep-alive connection usable after a refused key left its body unread', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const payload = Buffer.alloc(64 * 1024, 0x20);
    const first = await new Promise<Answer>((resolve, reject) => {
      const req = request(app.publicUrl + '/api/v1/verify', { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(payload.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end(payload);
    });
    expect(first).toStrictEqual({ status: 401, body: { status: 'error', code: 1020, message: 'api key is missing' } });
    const { apiKey } = await app.account(1);
    const second = await new Promise<Answer>((resolve, reject) => {
      const body = JSON.stringify({ qrcode: sandboxQr({ amount: 7 }) });
      const req = request(app.publicUrl + '/api/v1/verify', { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': apiKey } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'success', data: { amount: 7 } });
    agent.destroy();
  });
});
