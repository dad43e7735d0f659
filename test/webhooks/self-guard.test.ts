// The sender's last check: whatever name or address a URL uses, a webhook
// never connects to slipgate's own admin listener (here a real local server
// standing in for it), and any other endpoint is reached as usual.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpWebhookSender } from '../../src/webhooks/http-sender.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

describe('webhook sender: never the admin listener', () => {
  let admin: Receiver;
  beforeAll(async () => {
    admin = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(() => admin?.close());

  const post = (url: string, adminPort: number | null) => httpWebhookSender('test', adminPort).post({ url, body: '{}', headers: {}, timeoutMs: 5_000 });

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
