// The bench's --webhooks setup against a real slipgate: the endpoints it
// registers on every account lead the server's delivery worker to the
// bench's receiver, which counts a delivery whose signature the SDK's check
// accepts, refuses (400) a body signed with another secret, an unsigned one
// and one for an account it has no secret for, and counts a second delivery
// of one event as a duplicate; removed endpoints get nothing more.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import { addEndpoints, deliveriesReach, removeEndpoints, startDeliveryReceiver, type DeliveryReceiver } from '../../scripts/bench/webhooks.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';

let app: TestApp;
let db: BenchDatabase;
let receiver: DeliveryReceiver;

// A quick worker, and no cache of an account's endpoints: the removal below holds at the next verification.
beforeAll(async () => {
  app = await startApp({ env: { WEBHOOK_POLL_MS: '20', API_KEY_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  db = { engine: 'sqlite', url: app.databaseUrl, description: 'test', drop: async () => {} };
  receiver = await startDeliveryReceiver();
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

const signed = (secret: string, body: string, t = Math.floor(Date.now() / 1000)) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

async function deliver(url: string, body: string, signature?: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'slipgate-signature': signature } : {}) }, body });
  await res.text();
  return res.status;
}

describe('bench --webhooks', () => {
  it("delivers each account's verification.succeeded to the receiver with a signature it accepts, and nothing after the endpoints are removed", { timeout: 30_000 }, async () => {
    const shops = [await app.account(10), await app.account(10)];
    const ids = await addEndpoints(db, receiver);
    expect(ids).toHaveLength(2);
    expect([...receiver.accounts].sort()).toEqual(shops.map((s) => s.accountId).sort());

    for (const shop of shops) expect((await app.verify(shop.apiKey, sandboxQr())).status).toBe(200);
    await eventually(async () => receiver.delivered === 2);
    expect(receiver).toMatchObject({ badSignatures: 0, duplicates: 0 });
    expect(receiver.lagsMs).toHaveLength(2);
    for (const lag of receiver.lagsMs) expect(lag).toBeGreaterThanOrEqual(0);

    await removeEndpoints(db, ids);
    expect((await app.verify(shops[0]!.apiKey, sandboxQr())).status).toBe(200);
    // The wait ends when nothing more arrives: the count stays.
    await deliveriesReach(receiver, 3, 500);
    expect(receiver.delivered).toBe(2);
  });

  it('refuses a body signed with another secret, an unsigned one and one for an unknown account; counts an event delivered twice once', async () => {
    const accountId = 'acc_bench_signature_test';
    await receiver.addSecret(accountId, 'whsec_the_right_one');
    const before = { ...receiver };
    const body = JSON.stringify({ id: 'evt_bench_test', type: 'verification.succeeded', createdAt: new Date().toISOString(), data: {} });
    expect(await deliver(receiver.urlFor(accountId), body, signed('whsec_another_one', body))).toBe(400);
    expect(await deliver(receiver.urlFor(accountId), body)).toBe(400);
    expect(await deliver(receiver.urlFor('acc_nobody'), body, signed('whsec_the_right_one', body))).toBe(400);
    expect(await deliver(receiver.urlFor(accountId), body.replace('{}', '{"amount":1}'), signed('whsec_the_right_one', body))).toBe(400);
    // The receiver is its own process: its counts arrive a moment after its answers.
    await eventually(async () => receiver.badSignatures - before.badSignatures === 4);
    expect(receiver.delivered).toBe(before.delivered);

    expect(await deliver(receiver.urlFor(accountId), body, signed('whsec_the_right_one', body))).toBe(200);
    expect(await deliver(receiver.urlFor(accountId), body, signed('whsec_the_right_one', body))).toBe(200);
    await eventually(async () => receiver.duplicates - before.duplicates === 1);
    expect(receiver.delivered - before.delivered).toBe(1);
  });
});
