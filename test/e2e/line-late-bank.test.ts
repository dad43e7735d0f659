// A bank that publishes late, through LINE (issues 45 and 47), on every
// engine: a real slipgate, the LINE simulator, and a simulated bank on a
// real port that answers "not found" until the test makes it publish. A
// chat's slip the bank does not know yet is answered "not shown yet",
// costs nothing, and is kept; the re-check passes are run by the test
// (runOnce), so nothing depends on timing. Once the bank publishes it, the
// customer is pushed the reply a direct verify gets, its order paid by the
// chat's matching rules, charged once with one paid event; never published,
// the customer is pushed a kind "check with your bank", nothing is charged,
// and the staff are told. No push names another order. The same slip sent
// again while it is re-checked asks the bank nothing and keeps nothing more:
// its customer reads "still checking" (and is pushed the result once),
// anyone else "sent before", the staff told.
import { afterAll, describe, expect, it } from 'vitest';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { eventually } from '../helpers/child.js';
import { testEngines } from '../helpers/engines.js';
import { startLineRig, sendText, type LineRig } from '../helpers/line.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { slipFor } from '../payments/helpers.js';

const A = 'U000000000000000000000000000000a1';
const B = 'U000000000000000000000000000000b2';
const OWNER = 'U0000000000000000000000000000fee1';
/** No pass of its own within a test: the test runs each (runOnce). */
const MANUAL = { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 };
const NOT_SHOWN = '⏳ The bank has not shown this transfer yet. We will check again and tell you in a few minutes.';
const STILL_CHECKING = '⏳ We already have this slip and are still checking it with the bank. We will tell you the result as soon as we know it.';
const SENT_BEFORE = 'ℹ️ This slip was sent before; the shop will check it.';

describe.each(testEngines())('LINE: a bank that publishes late, on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  /** A matching channel on a bank that knows no slip until publish(), a staff target, and a webhook endpoint. */
  async function setUp(windowMs: number) {
    const bank: SimulatedBank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
    cleanup.push(() => bank.close());
    const endpoint: Receiver = await startReceiver();
    cleanup.push(() => endpoint.close());
    const { id, secret } = bankSimulator('kbank').credentials;
    const UPSTREAMS = JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }]);
    const r: LineRig = await startLineRig({
      databaseUrl: await engine.databaseUrl(),
      upstream: null,
      recheckTiming: { ...MANUAL, windowMs },
      matchPaymentRequests: true,
      credits: 5,
      env: { UPSTREAMS, LINE_STAFF_BATCH_MS: '200', WEBHOOK_POLL_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    cleanup.push(() => r.stop());
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
    await r.app.webhooks.add('admin:test', r.accountId, { url: endpoint.url, events: ['payment_request.paid'] });
    const receiver = await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
    const order = async (reference: string, satang: number) => (await r.app.payments.create(r.accountId, { amount: satang, reference, expiresInMinutes: 30, receiver: receiver.id })).request;
    const pushesTo = (to: string) => r.sim.log.filter((e) => e.kind === 'push' && e.to === to);
    const paidEvents = () => endpoint.received.map((x) => JSON.parse(x.body)).filter((e) => e.type === 'payment_request.paid');
    return { r, bank, order, pushesTo, paidEvents, publish: () => void (bank.state.behavior.answer = 'normal') };
  }

  it('a late slip: "not shown yet", free; once published, the result is pushed, its order paid, charged once, one paid event', { timeout: 60_000 }, async () => {
    const { r, bank, order, pushesTo, paidEvents, publish } = await setUp(60_000);
    const open = await order('LINE-LATE-1', 12000);
    await sendText(r, slipFor({ amount: 120 }), A);
    const [first] = await r.answers(1);
    expect(first).toMatchObject({ kind: 'reply', to: A, text: NOT_SHOWN });
    expect(await r.credits()).toBe(5);
    const [kept] = await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 });
    expect(kept).toMatchObject({ keyId: `line:${r.channelId}`, lineChannelId: r.channelId, lineUserId: A, paymentRequestId: null });

    // Still unknown: asked again, nothing pushed, nothing charged.
    const calls = bank.state.calls.verify;
    await r.app.rechecks.runOnce();
    expect(bank.state.calls.verify).toBe(calls + 1);
    expect(pushesTo(A)).toEqual([]);
    expect(await r.credits()).toBe(5);

    publish();
    await r.app.rechecks.runOnce();
    const [pushed] = pushesTo(A);
    expect(pushed!.text).toMatch(/^✅ Slip verified: the transfer is real\.\nAmount ฿120\.00\nTime .+\nPaid to .+\nPaid order LINE-LATE-1$/);
    expect(await r.credits()).toBe(4);
    expect((await r.app.store.getPaymentRequest(open.id))!.status).toBe('paid');
    // Recorded as the chat's, naming its customer, as a slip verified when it was sent is.
    expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toMatchObject([{ source: 'line', keyId: `line:${r.channelId}`, lineUserId: A }]);
    // Finished: it no longer names the customer.
    expect(await r.app.store.getRecheck(kept!.id)).toMatchObject({ outcome: 'verified', lineChannelId: r.channelId, lineUserId: null });

    // Finished: another pass asks nothing and tells nothing.
    await r.app.rechecks.runOnce();
    expect(bank.state.calls.verify).toBe(calls + 2);
    expect(pushesTo(A)).toHaveLength(1);
    expect(await r.credits()).toBe(4);
    await eventually(async () => paidEvents().length > 0);
    await r.app.stop();
    expect(paidEvents().map((e) => e.data.id)).toEqual([open.id]);
  });

  it('a slip never published: pushed a kind "check with your bank", nothing charged, the staff told, no other order named', { timeout: 60_000 }, async () => {
    const { r, bank, order, pushesTo, paidEvents } = await setUp(1);
    // Another customer's order is open: nothing said to this customer names it.
    await order('LINE-ORDER-0002', 34950);
    await sendText(r, slipFor({ amount: 120 }), A);
    expect((await r.answers(1))[0]).toMatchObject({ to: A, text: NOT_SHOWN });
    // Its deadline has passed: this attempt is its last.
    await r.app.rechecks.runOnce();
    const [pushed] = pushesTo(A);
    expect(pushed!.text).toBe('❌ The bank still has no record of this transfer. Please check with your bank or contact the shop.');
    expect(bank.state.calls.verify).toBe(2);
    expect(await r.credits()).toBe(5);
    expect((await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 }))).toEqual([]);
    await eventually(async () => pushesTo(OWNER).length === 1);
    const note = pushesTo(OWNER)[0]!.text!;
    expect(note).toContain('The bank never showed this transfer while it was re-checked');
    expect(note).not.toContain(A);
    for (const said of r.sim.log.filter((e) => e.to === A && e.kind !== 'loading')) expect(said.text).not.toMatch(/LINE-ORDER-0002|349\.50/);
    expect(paidEvents()).toEqual([]);
  });

  it('a pass that dies after the charge: the next one pushes the recorded result once; the same slip kept twice is charged and told once', { timeout: 60_000 }, async () => {
    const { r, bank, order, pushesTo, publish } = await setUp(60_000);
    const open = await order('LINE-LATE-2', 13000);
    const qrcode = slipFor({ amount: 130 });
    await sendText(r, qrcode, A);
    expect((await r.answers(1)).map((a) => a.text)).toEqual([NOT_SHOWN]);
    // Two sends that raced past the re-send check both keep it: the second copy stored as that race leaves it.
    const [first] = await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 });
    expect(await r.app.store.createRecheck({ ...first!, id: `${first!.id}x`, createdAt: new Date(first!.createdAt.getTime() + 1) }, 100)).toBe(true);
    const kept = await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 });
    expect(kept).toHaveLength(2);
    publish();
    // The store's finish fails once, right after the settle committed (as a crash there would leave it).
    const store = r.app.store;
    const finish = store.finishRecheck;
    store.finishRecheck = async () => {
      store.finishRecheck = finish;
      throw new Error('the process died here');
    };
    await expect(r.app.rechecks.runOnce()).rejects.toThrow('the process died here');
    expect(await r.credits()).toBe(4);
    expect((await store.getPaymentRequest(open.id))!.status).toBe('paid');
    expect(pushesTo(A)).toEqual([]);

    await r.app.rechecks.runOnce();
    expect(pushesTo(A).map((p) => p.text)).toEqual([expect.stringMatching(/^✅ Slip verified: the transfer is real\.\nAmount ฿130\.00\n.+\nPaid order LINE-LATE-2$/s)]);
    const outcomes = await Promise.all(kept.map(async (k) => (await store.getRecheck(k.id))!.outcome));
    expect(outcomes.sort()).toEqual(['superseded', 'verified']);
    // One send and one confirmed attempt: the copy found verified asked the bank nothing and cost nothing.
    expect(bank.state.calls.verify).toBe(2);
    expect(await r.credits()).toBe(4);
    await r.app.rechecks.runOnce();
    expect(pushesTo(A)).toHaveLength(1);
  });

  it('the same slip re-sent by its customer while re-checked: "still checking", no bank call, one re-check, the result pushed once', { timeout: 60_000 }, async () => {
    const { r, bank, order, pushesTo, paidEvents, publish } = await setUp(60_000);
    const open = await order('LINE-LATE-3', 14000);
    const qrcode = slipFor({ amount: 140 });
    await sendText(r, qrcode, A);
    await r.answers(1);
    const calls = bank.state.calls.verify;
    await sendText(r, qrcode, A);
    expect((await r.answers(2)).map((a) => [a.kind, a.to, a.text])).toEqual([['reply', A, NOT_SHOWN], ['reply', A, STILL_CHECKING]]);
    expect(bank.state.calls.verify).toBe(calls);
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toHaveLength(1);
    expect(await r.credits()).toBe(5);
    // Nobody needs a person for it: the staff hear nothing.
    expect(pushesTo(OWNER)).toEqual([]);

    publish();
    await r.app.rechecks.runOnce();
    await r.app.rechecks.runOnce();
    expect(pushesTo(A).map((p) => p.text)).toEqual([expect.stringMatching(/^✅ Slip verified: the transfer is real\.\nAmount ฿140\.00\n.+\nPaid order LINE-LATE-3$/s)]);
    expect(bank.state.calls.verify).toBe(calls + 1);
    expect(await r.credits()).toBe(4);
    await eventually(async () => paidEvents().length > 0);
    await r.app.stop();
    expect(paidEvents().map((e) => e.data.id)).toEqual([open.id]);
  });

  it('the same slip from another customer while re-checked: "sent before", the staff told, no bank call; only its sender is pushed the result', { timeout: 60_000 }, async () => {
    const { r, bank, pushesTo, publish } = await setUp(60_000);
    const qrcode = slipFor({ amount: 150 });
    await sendText(r, qrcode, A);
    await r.answers(1);
    const calls = bank.state.calls.verify;
    await sendText(r, qrcode, B);
    const answers = await r.answers(2);
    expect(answers[1]).toMatchObject({ kind: 'reply', to: B, text: SENT_BEFORE });
    expect(bank.state.calls.verify).toBe(calls);
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toMatchObject([{ lineUserId: A }]);
    await eventually(async () => pushesTo(OWNER).length === 1);
    const note = pushesTo(OWNER)[0]!.text!;
    expect(note).toContain('The same slip again, from another customer or used before');
    for (const user of [A, B]) expect(note).not.toContain(user);

    publish();
    await r.app.rechecks.runOnce();
    expect(pushesTo(A).map((p) => p.text)).toEqual([expect.stringMatching(/^✅ Slip verified: the transfer is real\.\nAmount ฿150\.00\n/)]);
    expect(pushesTo(B)).toEqual([]);
    expect(await r.credits()).toBe(4);
  });

  it('a slip kept through the API, then sent in the chat: "sent before", the staff told, no bank call', { timeout: 60_000 }, async () => {
    const { r, bank, pushesTo } = await setUp(60_000);
    const qrcode = slipFor({ amount: 160 });
    const kept = await r.app.post({ qrcode, recheck: true }, { 'x-api-key': r.apiKey });
    expect(kept).toMatchObject({ status: 202, body: { status: 'pending' } });
    const calls = bank.state.calls.verify;
    await sendText(r, qrcode, A);
    expect((await r.answers(1))[0]).toMatchObject({ kind: 'reply', to: A, text: SENT_BEFORE });
    expect(bank.state.calls.verify).toBe(calls);
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toHaveLength(1);
    await eventually(async () => pushesTo(OWNER).length === 1);
  });

  it('a re-check the receiver policy refuses pushes "paid someone else", free', { timeout: 60_000 }, async () => {
    const { r, pushesTo, publish } = await setUp(60_000);
    await r.app.admin.setReceiverPolicy('admin:test', r.accountId, 'require');
    await sendText(r, slipFor({ amount: 170, promptPay: '0899999999' }), A);
    expect((await r.answers(1))[0]).toMatchObject({ to: A, text: NOT_SHOWN });
    publish();
    await r.app.rechecks.runOnce();
    expect(pushesTo(A).map((p) => p.text)).toEqual([expect.stringMatching(/^⚠️ This slip paid someone else, not this shop\./)]);
    expect(await r.credits()).toBe(5);
    await eventually(async () => pushesTo(OWNER).length === 1);
    // The note gives the slip's amount and time, not the reference alone (line.md promises all three).
    expect(pushesTo(OWNER)[0]!.text).toMatch(/This slip paid someone else\n฿170\.00 · .+ · ref /);
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toEqual([]);
  });

  it('a re-check the bank confirms when the shop has no credit left pushes "try later", nothing charged', { timeout: 60_000 }, async () => {
    const { r, pushesTo, publish } = await setUp(1);
    await sendText(r, slipFor({ amount: 180 }), A);
    expect((await r.answers(1))[0]).toMatchObject({ to: A, text: NOT_SHOWN });
    await r.app.admin.adjust('admin:test', { accountId: r.accountId, delta: -5, reason: 'spent elsewhere' });
    publish();
    // Its deadline has passed: this attempt is its last.
    await r.app.rechecks.runOnce();
    expect(pushesTo(A).map((p) => p.text)).toEqual(['⏳ The slip cannot be checked right now. Please try again later.']);
    expect(await r.credits()).toBe(0);
    expect(await r.app.store.openRechecks({ accountId: r.accountId, limit: 10 })).toEqual([]);
  });
});
