// The sender's last check: whatever name or address a URL uses, a webhook
// never connects to slipgate's own admin listener (here a real local server
// standing in for it), nor to a link-local or metadata address, nor to a
// private one unless WEBHOOK_ALLOW_PRIVATE=true; any other endpoint is
// reached as usual.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpWebhookSender } from '../../src/webhooks/http-sender.js';
import { guardedLookup, type Resolve } from '../../src/webhooks/self-guard.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

describe('webhook sender: never the admin listener', () => {
  let admin: Receiver;
  beforeAll(async () => {
    admin = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(() => admin?.close());

  const post = (url: string, adminPort: number | null) => httpWebhookSender('test', { adminPort, allowPrivate: true }).post({ url, body: '{}', headers: {}, timeoutMs: 5_000 });

  it('refuses the admin port by address and by a name that resolves to this host, and sends nothing', async () => {
    const port = Number(new URL(admin.url).port);
    for (const url of [`http://127.0.0.1:${port}/graphql`, `http://localhost:${port}/graphql`, `http://[::ffff:127.0.0.1]:${port}/x`]) {
      expect(await post(url, port)).toEqual({ statusCode: null, error: "refused: the URL leads to slipgate's own admin listener" });
    }
    expect(admin.received).toEqual([]);
  });

  it('reaches the same server when it is not the admin listener', async () => {
    const port = Number(new URL(admin.url).port);
    expect(await post(`http://localhost:${port}/hooks`, port + 1)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(admin.received).toHaveLength(1);
  });
});

// The target rules at connect time, on the address a name resolves to. Only
// 127.0.0.1 is ever connected to here: names leading elsewhere are checked
// through the lookup alone (guardedLookup), with no socket.
describe('webhook sender: link-local, metadata and private targets at connect time', () => {
  let target: Receiver;
  beforeAll(async () => {
    target = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(() => target?.close());

  const port = () => Number(new URL(target.url).port);
  /** A resolver of the test's own names (no DNS): each name answers the addresses given. */
  const names = (table: Record<string, string[]>): Resolve => (hostname, _options, callback) => {
    const answers = table[hostname];
    if (!answers) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  const post = (url: string, allowPrivate: boolean, resolve?: Resolve) => httpWebhookSender('test', { adminPort: null, allowPrivate }, resolve).post({ url, body: '{}', headers: {}, timeoutMs: 2_000 });
  const PRIVATE_REFUSAL = 'refused: the URL leads to a loopback or private network address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)';
  const METADATA_REFUSAL = 'refused: the URL leads to a link-local, cloud metadata or non-unicast address';

  it('refuses a loopback address or a name resolving to one before connecting, unless WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const opened = target.connections.opened;
    for (const url of [`http://127.0.0.1:${port()}/hooks`, `http://localhost:${port()}/hooks`, `http://[::ffff:127.0.0.1]:${port()}/hooks`]) {
      expect(await post(url, false), url).toEqual({ statusCode: null, error: PRIVATE_REFUSAL });
    }
    // A name registered as public that now resolves to loopback (DNS rebinding) is caught by the connection's own lookup.
    const rebound = names({ 'shop.example': ['127.0.0.1'] });
    expect(await post(`http://shop.example:${port()}/hooks`, false, rebound)).toEqual({ statusCode: null, error: PRIVATE_REFUSAL });
    expect(target.connections.opened).toBe(opened);
    expect(target.received).toEqual([]);

    expect(await post(`http://localhost:${port()}/hooks`, true)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(await post(`http://shop.example:${port()}/hooks`, true, rebound)).toEqual({ statusCode: 200, retryAfter: undefined });
    expect(target.received).toHaveLength(2);
  });

  it('refuses a name when any of its addresses is a metadata one, even with WEBHOOK_ALLOW_PRIVATE=true', async () => {
    // The first answer is 127.0.0.1: were the rule missing, this connection would go there and nowhere else.
    const mixed = names({ 'metadata.example': ['127.0.0.1', '169.254.169.254'] });
    const before = target.received.length;
    expect(await post(`http://metadata.example:${port()}/hooks`, true, mixed)).toEqual({ statusCode: null, error: METADATA_REFUSAL });
    expect(target.received).toHaveLength(before);
  });

  it.each([
    ['metadata.google.internal', ['169.254.169.254']],
    ['aws-v6.example', ['fd00:ec2::254']],
    ['alibaba.example', ['100.100.100.200']],
    ['link-local.example', ['fe80::1']],
    ['mapped.example', ['::ffff:169.254.169.254']],
  ])('the connection lookup refuses %s (%s) with or without the setting', async (hostname, addresses) => {
    for (const allowPrivate of [false, true]) {
      const lookup = guardedLookup(443, { adminPort: null, allowPrivate }, names({ [hostname]: addresses }));
      const err = await new Promise<Error | null>((done) => lookup(hostname, {}, (e) => done(e)));
      expect(err?.message).toBe(METADATA_REFUSAL);
    }
  });

  it('the connection lookup answers a public name as dns.lookup would: one address, or all when asked', async () => {
    const lookup = guardedLookup(443, { adminPort: null, allowPrivate: false }, names({ 'shop.example': ['203.0.113.7', '2001:db8::7'] }));
    const one = await new Promise<unknown[]>((done) => lookup('shop.example', {}, (...args) => done(args)));
    expect(one).toEqual([null, '203.0.113.7', 4]);
    const all = await new Promise<unknown[]>((done) => lookup('shop.example', { all: true }, (...args) => done(args)));
    expect(all).toEqual([null, [{ address: '203.0.113.7', family: 4 }, { address: '2001:db8::7', family: 6 }]]);
  });
});
