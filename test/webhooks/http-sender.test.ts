// The sender's connections, counted on real local servers: deliveries to one
// endpoint share one kept-alive TCP connection, a connection never carries
// another endpoint's requests, an answer with a huge body ends the
// attempt at once and closes its connection instead of being read, and a
// body that never ends is cut at the attempt's deadline.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookSender } from '../../src/domain/ports/webhook-sender.js';
import { httpWebhookSender, NO_ANSWER, RESPONSE_BODY_CAP } from '../../src/webhooks/http-sender.js';
import { eventually } from '../helpers/child.js';
import { startReceiver, type Answer, type Receiver } from '../helpers/webhook-receiver.js';

const receivers: Receiver[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  for (const s of servers.splice(0)) await new Promise((done) => s.close(done));
});

async function receiver(answer: () => Answer): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** The receivers here listen on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true. */
const LOCAL = { adminPort: null, allowPrivate: true };

const post = (sender: WebhookSender, url: string, body = '{}') => sender.post({ url, body, headers: {}, timeoutMs: 5_000 });

describe('webhook sender: connections', () => {
  it('sends one endpoint its deliveries over one kept-alive connection, reading a small body to its end', async () => {
    const endpoint = await receiver(() => ({ status: 200, body: '{"ok":true}' }));
    const sender = httpWebhookSender('test', LOCAL);
    for (let i = 0; i < 5; i++) expect(await post(sender, endpoint.url, `{"n":${i}}`)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(endpoint.received.map((r) => r.body)).toEqual([0, 1, 2, 3, 4].map((n) => `{"n":${n}}`));
    expect(endpoint.connections).toEqual({ opened: 1, closed: 0 });
  });

  it('never sends one endpoint a request over another endpoint’s connection', async () => {
    const one = await receiver(() => ({ status: 204 }));
    const two = await receiver(() => ({ status: 204 }));
    const sender = httpWebhookSender('test', LOCAL);
    for (let i = 0; i < 3; i++) {
      await post(sender, one.url, `{"to":"one"}`);
      await post(sender, two.url, `{"to":"two"}`);
    }
    expect(one.received.map((r) => r.body)).toEqual(Array(3).fill('{"to":"one"}'));
    expect(two.received.map((r) => r.body)).toEqual(Array(3).fill('{"to":"two"}'));
    expect([one.connections.opened, two.connections.opened]).toEqual([1, 1]);
  });

  for (const chunked of [false, true]) {
    it(`ends the attempt on a body past the cap (${chunked ? 'chunked' : 'with a Content-Length'}) and closes that connection unread`, async () => {
      const huge = 'x'.repeat(RESPONSE_BODY_CAP * 64);
      const endpoint = await receiver(() => ({ status: 200, body: huge, chunked }));
      const sender = httpWebhookSender('test', LOCAL);
      expect(await post(sender, endpoint.url)).toEqual({ statusCode: 200, retryAfter: undefined });
      await eventually(async () => endpoint.connections.closed === 1);
      // The next delivery cannot use the closed connection: it opens its own.
      expect(await post(sender, endpoint.url)).toEqual({ statusCode: 200, retryAfter: undefined });
      expect(endpoint.connections.opened).toBe(2);
    });
  }

  it('still refuses the admin listener by name after connections to other endpoints were pooled', async () => {
    const admin = await receiver(() => ({ status: 200 }));
    const other = await receiver(() => ({ status: 200 }));
    const adminPort = Number(new URL(admin.url).port);
    const sender = httpWebhookSender('test', { adminPort, allowPrivate: true });
    const otherPort = new URL(other.url).port;
    expect(await post(sender, `http://localhost:${otherPort}/hooks`)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(await post(sender, `http://localhost:${otherPort}/hooks`)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(await post(sender, `http://localhost:${adminPort}/graphql`)).toEqual({ statusCode: null, error: "refused: the URL leads to slipgate's own admin listener" });
    expect(admin.received).toEqual([]);
    expect(other.connections.opened).toBe(1);
  });

  it('answers at the status line of a body that never ends, and closes its connection at the deadline', async () => {
    const closed: { at: number | null } = { at: null };
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('still coming');
    });
    server.on('connection', (socket) => socket.on('close', () => (closed.at = performance.now())));
    servers.push(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const started = performance.now();
    const answer = await httpWebhookSender('test', LOCAL).post({ url, body: '{}', headers: {}, timeoutMs: 300 });
    expect(answer).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(performance.now() - started).toBeLessThan(250);
    await eventually(async () => closed.at !== null);
    expect(closed.at! - started).toBeGreaterThanOrEqual(290);
    expect(closed.at! - started).toBeLessThan(2_000);
  });
});

describe('webhook sender: what a failed connection records', () => {
  it('records a refused, reset or timed-out connection with one text (no port-by-port detail); the cause only in detail', async () => {
    // A closed port: listen, note the port, close.
    const closed = createTcpServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    // A port whose service resets every connection, and one that never answers.
    const resetting = createTcpServer((socket) => socket.resetAndDestroy());
    const silent = createTcpServer(() => {});
    for (const server of [resetting, silent]) await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const sender = httpWebhookSender('test', LOCAL);
      const at = (port: number) => sender.post({ url: `http://127.0.0.1:${port}/hooks`, body: '{}', headers: {}, timeoutMs: 300 });
      const answers = [await at(closedPort), await at((resetting.address() as AddressInfo).port), await at((silent.address() as AddressInfo).port)];
      expect(answers.map((a) => a.statusCode === null && a.error)).toEqual([NO_ANSWER, NO_ANSWER, NO_ANSWER]);
      const details = answers.map((a) => (a.statusCode === null ? a.detail : undefined));
      expect(details[0]).toMatch(/^ECONNREFUSED/);
      expect(details[1]).toMatch(/^ECONNRESET/);
      expect(details[2]).toMatch(/timed out/);
    } finally {
      for (const server of [resetting, silent]) server.close();
    }
  });
});
