// Slips the bank does not know yet (issue 45), end to end on every engine:
// a real slipgate, a simulated bank on a real port that answers "not found"
// until the test makes it publish (its `answer` knob), and a real webhook
// endpoint. A slip sent for a payment request is answered 202 pending,
// costs nothing, and is asked again: once the bank publishes it pays its
// request, charged once, with one paid event; never published, it is
// unconfirmed and the request is open again. The cases that race drive the
// re-check passes themselves (runOnce), so nothing depends on timing.
import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { afterAll, describe, expect, it } from 'vitest';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { testEngines } from '../helpers/engines.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { call, create, PATH, shop, slipFor, type Shop } from './helpers.js';

// The receiver listens on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOW_PRIVATE: 'true' };
/** Passes every 50 ms, backoff from 20 ms: a late slip is found soon after the bank publishes it. */
const QUICK = { windowMs: 60_000, firstDelayMs: 20, maxDelayMs: 100, pollMs: 50 };
/** No pass of its own within a test: the test runs each (runOnce), so races are decided by the test. */
const MANUAL = { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 };
const EVENTS = ['payment_request.paid', 'payment_request.slip_unconfirmed', 'verification.succeeded', 'verification.unconfirmed'] as const;

describe.each(testEngines())('re-checks of slips the bank does not know yet on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  /** A bank that does not know any slip until publish(). */
  async function lateBank() {
    const bank: SimulatedBank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
    cleanup.push(() => bank.close());
    const { id, secret } = bankSimulator('kbank').credentials;
    const env = { ...FAST, UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]) };
    return { bank, env, publish: () => void (bank.state.behavior.answer = 'normal') };
  }

  /** A slipgate on `databaseUrl` asking `env`'s bank, with a shop listening to every re-check event. */
  async function serve(env: Record<string, string>, timing: typeof QUICK, databaseUrl: string, receiver: Receiver, merchant?: Shop) {
    const app: TestApp = await startApp({ databaseUrl, env, upstream: null, recheckTiming: timing });
    let stopped = false;
    const stop = async () => {
      if (!stopped) await app.stop();
      stopped = true;
    };
    cleanup.push(stop);
    const s = merchant ?? (await shop(app, 10));
    if (!merchant) await app.webhooks.add('admin:test', s.accountId, { url: receiver.url, events: [...EVENTS] });
    return {
      app,
      shop: s,
      stop,
      credits: async () => (await app.store.getAccount(s.accountId))!.credits,
      request: async (amount: number, reference: string) => (await create(app, s, { amount, reference })).body.data as { id: string },
      send: (body: Record<string, unknown>) => app.post(body, { 'x-api-key': s.apiKey }),
      read: async (id: string) => (await call(app, 'GET', `${PATH}/${id}`, s.apiKey)).body.data,
      verification: async (id: string, apiKey = s.apiKey) => call(app, 'GET', `/api/v1/verifications/${id}`, apiKey),
    };
  }

  async function receiver() {
    const r = await startReceiver();
    cleanup.push(() => r.close());
    return r;
  }

  const eventsAt = (r: Receiver, type: string) => r.received.map((x) => JSON.parse(x.body)).filter((e) => e.type === type);

  it('a late slip: 202 verifying, nothing charged; once the bank publishes it pays its request, charged once, one paid event', { timeout: 60_000 }, async () => {
    const { env, publish, bank } = await lateBank();
    const endpoint = await receiver();
    const s = await serve(env, QUICK, await engine.databaseUrl(), endpoint);
    const order = await s.request(120, 'late-1');
    const qrcode = slipFor({ amount: 120 });

    const sent = await s.send({ qrcode, paymentRequest: order.id });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ status: 'pending', verificationId: expect.any(String), paymentRequest: { id: order.id, status: 'verifying' }, message: expect.any(String) });
    expect(sent.headers.get('x-credits-remaining')).toBe('10');
    expect(await s.credits()).toBe(10);
    // GET shows the slip being checked: its bank, its reference masked, since when.
    const verifying = await s.read(order.id);
    expect(verifying).toMatchObject({ status: 'verifying', verifying: { verificationId: sent.body.verificationId, sendingBank: expect.stringMatching(/^\d{3}$/), transRef: expect.stringMatching(/^\*+\w{4}$/) } });
    // Asked again while the bank still does not know it: still nothing charged.
    await eventually(async () => bank.state.calls.verify >= 3);
    expect(await s.credits()).toBe(10);
    expect((await s.verification(sent.body.verificationId)).body).toMatchObject({ status: 'pending', paymentRequestId: order.id });

    publish();
    // The re-check ends just after the settle that pays: wait for its end, which comes last.
    await eventually(async () => (await s.verification(sent.body.verificationId)).body.status === 'success');
    expect((await s.read(order.id)).status).toBe('paid');
    expect(await s.credits()).toBe(9);
    const read = (await s.verification(sent.body.verificationId)).body;
    expect(read).toMatchObject({ status: 'success', verificationId: sent.body.verificationId, paymentRequest: { id: order.id, status: 'paid' }, data: { amount: 120 } });
    expect((await s.read(order.id)).paidBy.verificationId).toBe(read.recordId);
    await eventually(async () => eventsAt(endpoint, 'payment_request.paid').length > 0);
    await s.stop();
    expect(eventsAt(endpoint, 'payment_request.paid').map((e) => e.data.id)).toEqual([order.id]);
    expect(eventsAt(endpoint, 'payment_request.slip_unconfirmed')).toEqual([]);
  });

  it('a slip never published: unconfirmed at the deadline, nothing charged, the request open again with slip_unconfirmed', { timeout: 60_000 }, async () => {
    const { env, publish } = await lateBank();
    const endpoint = await receiver();
    const s = await serve(env, { ...QUICK, windowMs: 1_000 }, await engine.databaseUrl(), endpoint);
    const order = await s.request(130, 'never');
    const sent = await s.send({ qrcode: slipFor({ amount: 130 }), paymentRequest: order.id });
    expect(sent.status).toBe(202);
    await eventually(async () => (await s.verification(sent.body.verificationId)).body.status === 'unconfirmed');
    expect((await s.verification(sent.body.verificationId)).body).toMatchObject({ reason: 'not_confirmed', paymentRequestId: order.id });
    const after = await s.read(order.id);
    expect(after.status).toBe('pending');
    expect(after.verifying).toBeUndefined();
    expect(await s.credits()).toBe(10);
    await eventually(async () => eventsAt(endpoint, 'payment_request.slip_unconfirmed').length > 0);
    const [event] = eventsAt(endpoint, 'payment_request.slip_unconfirmed');
    expect(event.data).toMatchObject({ id: order.id, status: 'pending', reason: 'not_confirmed', slip: { verificationId: sent.body.verificationId } });
    expect(eventsAt(endpoint, 'payment_request.paid')).toEqual([]);
    // Open for another slip: one the bank knows pays it as usual, for one credit.
    publish();
    expect((await s.send({ qrcode: slipFor({ amount: 130 }), paymentRequest: order.id })).body.paymentRequest).toEqual({ id: order.id, status: 'paid' });
    expect(await s.credits()).toBe(9);
  });

  it('survives a restart: kept by one process, found paid by the next on the same database', { timeout: 60_000 }, async () => {
    const { env, publish } = await lateBank();
    const endpoint = await receiver();
    const databaseUrl = await engine.databaseUrl();
    const first = await serve(env, MANUAL, databaseUrl, endpoint);
    const order = await first.request(140, 'restart');
    const sent = await first.send({ qrcode: slipFor({ amount: 140 }), paymentRequest: order.id });
    expect(sent.status).toBe(202);
    await first.app.rechecks.runOnce();
    await first.stop();

    publish();
    const second = await serve(env, QUICK, databaseUrl, endpoint, first.shop);
    await eventually(async () => (await second.verification(sent.body.verificationId)).body.status === 'success');
    expect((await second.read(order.id)).status).toBe('paid');
    expect(await second.credits()).toBe(9);
    await eventually(async () => eventsAt(endpoint, 'payment_request.paid').length > 0);
    await second.stop();
    expect(eventsAt(endpoint, 'payment_request.paid')).toHaveLength(1);
  });

  it('a pass that dies between the charge and the end of its re-check: the next pass finds the charge and charges nothing more', { timeout: 60_000 }, async () => {
    const { env, publish } = await lateBank();
    const endpoint = await receiver();
    const s = await serve(env, MANUAL, await engine.databaseUrl(), endpoint);
    const order = await s.request(145, 'dies-after-charge');
    const sent = await s.send({ qrcode: slipFor({ amount: 145 }), paymentRequest: order.id });
    expect(sent.status).toBe(202);
    publish();
    // The store's finish fails once, right after the settle committed (as a crash there would leave it).
    const store = s.app.store;
    const finish = store.finishRecheck;
    store.finishRecheck = async () => {
      store.finishRecheck = finish;
      throw new Error('the process died here');
    };
    await expect(s.app.rechecks.runOnce()).rejects.toThrow('the process died here');
    expect((await s.read(order.id)).status).toBe('paid');
    expect(await s.credits()).toBe(9);
    expect((await s.verification(sent.body.verificationId)).body.status).toBe('pending');
    await s.app.rechecks.runOnce();
    const read = (await s.verification(sent.body.verificationId)).body;
    expect(read).toMatchObject({ status: 'success', recordId: (await s.read(order.id)).paidBy.verificationId });
    expect(await s.credits()).toBe(9);
  });

  it('two slips kept for one request: one pays, the other is superseded free; a slip sent directly meanwhile pays first', { timeout: 60_000 }, async () => {
    const { env, publish, bank } = await lateBank();
    const endpoint = await receiver();
    const s = await serve(env, MANUAL, await engine.databaseUrl(), endpoint);
    const order = await s.request(150, 'two-slips');
    // Sent one after the other (the race under test is the re-checks', not the sends': FerretDB, standing in for
    // MongoDB, does not keep two holds on one account atomic).
    const a = await s.send({ qrcode: slipFor({ amount: 150 }), paymentRequest: order.id });
    const b = await s.send({ qrcode: slipFor({ amount: 150 }), paymentRequest: order.id });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect((await s.read(order.id)).status).toBe('verifying');
    publish();
    await s.app.rechecks.runOnce();
    const outcomes = [(await s.verification(a.body.verificationId)).body.status, (await s.verification(b.body.verificationId)).body.status].sort();
    expect(outcomes).toEqual(['success', 'superseded']);
    expect((await s.read(order.id)).status).toBe('paid');
    expect(await s.credits()).toBe(9);

    // Kept, then another slip sent directly once the bank knows it: the direct one pays; the kept one is superseded free.
    const other = await s.request(160, 'direct-first');
    // The bank does not know the next slip at first, then does when it is sent directly.
    bank.state.behavior.answer = 'not_found';
    const kept = await s.send({ qrcode: slipFor({ amount: 160 }), paymentRequest: other.id });
    expect(kept.status).toBe(202);
    bank.state.behavior.answer = 'normal';
    const direct = await s.send({ qrcode: slipFor({ amount: 160 }), paymentRequest: other.id });
    expect(direct.body.paymentRequest).toEqual({ id: other.id, status: 'paid' });
    await s.app.rechecks.runOnce();
    expect((await s.verification(kept.body.verificationId)).body.status).toBe('superseded');
    expect(await s.credits()).toBe(8);
    await eventually(async () => eventsAt(endpoint, 'payment_request.paid').length >= 2);
    await s.stop();
    expect(eventsAt(endpoint, 'payment_request.paid').map((e) => e.data.id).sort()).toEqual([order.id, other.id].sort());
  });

  it('plain verify, opt-in: "recheck": true answers 202 with a verificationId, GET reads it; without the field the answer is as before', { timeout: 60_000 }, async () => {
    const { env, publish } = await lateBank();
    const endpoint = await receiver();
    const s = await serve({ ...env, RECHECK_MAX_PER_ACCOUNT: '1' }, MANUAL, await engine.databaseUrl(), endpoint);
    const qrcode = slipFor({ amount: 170 });
    const plain = await s.send({ qrcode });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ status: 'error', message: expect.any(String) });
    const sent = await s.send({ qrcode, recheck: true });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ status: 'pending', verificationId: expect.any(String), message: expect.any(String) });
    expect((await s.verification(sent.body.verificationId)).body).toMatchObject({ status: 'pending', verificationId: sent.body.verificationId });
    // One kept at a time for this account: a second is refused with its own code, nothing kept.
    const beyond = await s.send({ qrcode: slipFor({ amount: 171 }), recheck: true });
    expect(beyond.status).toBe(429);
    expect(beyond.body).toEqual({ status: 'error', code: 1027, message: expect.any(String) });
    expect((await s.send({ qrcode, recheck: 'yes' })).status).toBe(400);
    // A picture sent as bytes takes it as a query parameter: kept too (the bound then refuses it, one being kept).
    const picture = await fetch(`${s.app.publicUrl}/api/v1/verify?recheck=true`, { method: 'POST', headers: { 'content-type': 'image/png', 'x-api-key': s.shop.apiKey }, body: new Uint8Array(await QRCode.toBuffer(slipFor({ amount: 172 }), { width: 400, margin: 4 })) });
    expect([picture.status, ((await picture.json()) as { code?: number }).code]).toEqual([429, 1027]);
    // Another account's key reads nothing of it.
    const stranger = await s.app.account(1);
    expect((await s.verification(sent.body.verificationId, stranger.apiKey)).status).toBe(404);

    publish();
    await s.app.rechecks.runOnce();
    const read = (await s.verification(sent.body.verificationId)).body;
    expect(read).toMatchObject({ status: 'success', verificationId: sent.body.verificationId, data: { amount: 170 } });
    expect(await s.credits()).toBe(9);
    await eventually(async () => eventsAt(endpoint, 'verification.succeeded').length > 0);
    await s.stop();
    expect(eventsAt(endpoint, 'verification.succeeded').map((e) => e.data.verificationId)).toEqual([read.recordId]);
  });
});
