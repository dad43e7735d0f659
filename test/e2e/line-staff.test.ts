// Staff notifications through the simulator and a real slipgate (SQLite):
// the bot records the groups it is added to (join, leave); the shop's staff
// targets are pushed the slips that need a person (an ambiguous match, a
// wrong amount for an open order, a slip paid to someone else, the same slip
// from another customer, a transfer after an order expired), collected into
// one push per target per batch, and sent on a normal shutdown rather than
// lost; the customers' replies still name none of those orders.
import { describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { bankSimulator, startSimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { eventually } from '../helpers/child.js';
import { rigsOfThisFile, sendText, type LineRig } from '../helpers/line.js';
import { slipFor } from '../payments/helpers.js';

const A = 'U000000000000000000000000000000a1';
const B = 'U000000000000000000000000000000b2';
const OWNER = 'U0000000000000000000000000000fee1';
const STAFF_GROUP = 'C0000000000000000000000000000c0de';
const OLD_GROUP = 'C00000000000000000000000000000001';
const rig = rigsOfThisFile();
const text = (r: LineRig, body: string, user = A) => sendText(r, body, user);
const pushesTo = (r: LineRig, to: string) => r.sim.log.filter((e) => e.kind === 'push' && e.to === to);

describe('LINE staff notifications', () => {
  it('records the groups the bot joins and leaves', { timeout: 30_000 }, async () => {
    const r = await rig();
    await r.control(`/sim/join?group=${OLD_GROUP}`);
    await r.control(`/sim/join?group=${STAFF_GROUP}`);
    // Events are worked off side by side: the leave is sent once both joins are recorded.
    await eventually(async () => (await r.app.lineChannels.groups(r.channelId)).length === 2);
    await r.control(`/sim/leave?group=${OLD_GROUP}`);
    await eventually(async () => (await r.app.lineChannels.groups(r.channelId)).some((g) => g.leftAt !== null));
    const groups = await r.app.lineChannels.groups(r.channelId);
    expect(groups.map((g) => [g.groupId, g.kind, g.leftAt === null])).toEqual(
      expect.arrayContaining([
        [OLD_GROUP, 'group', false],
        [STAFF_GROUP, 'group', true],
      ]),
    );
    expect(groups).toHaveLength(2);
    // Joining is no chat: nothing is said in the group.
    expect(r.sim.log).toEqual([]);
  });

  it('pushes the slips that need a person to every staff target, batched into one message each, sent on shutdown', { timeout: 90_000 }, async () => {
    // The default batch window (60 s): nothing is pushed before the shutdown below.
    const r = await rig({ matchPaymentRequests: true, credits: 20 });
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, STAFF_GROUP);
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
    const first = await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
    const second = await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0898765432', nameEn: 'SOMCHAI JAIDEE' });
    // Slips that paid neither receiver are reported (not refused).
    await r.app.admin.setReceiverPolicy('admin:test', r.accountId, 'report');
    const order = async (reference: string, satang: number, receiver = first.id) => (await r.app.payments.create(r.accountId, { amount: satang, reference, expiresInMinutes: 30, receiver })).request;
    await order('ORDER-A', 20000);
    await order('ORDER-B', 20000);
    await order('LINE-ORDER-0002', 34950, second.id);
    // Still pending (the expiry pass has not run), its window over ten minutes ago.
    const base = await order('ORDER-E', 6000);
    const createdAt = new Date(Date.now() - 30 * 60_000);
    await r.app.store.createPaymentRequest({ ...base, id: `${base.id.slice(0, -4)}beef`, reference: 'ORDER-LATE', amount: 7000, requestedAmount: 7000, createdAt, expiresAt: new Date(createdAt.getTime() + 10 * 60_000) });

    const ambiguous = slipFor({ amount: 200 });
    await text(r, ambiguous, A);
    await text(r, slipFor({ amount: 120, promptPay: '0898765432' }), B);
    await text(r, sandboxQr({ amount: 55 }), A);
    await text(r, slipFor({ amount: 70 }), A);
    const replies = await r.answers(4);
    await text(r, ambiguous, B);
    const all = await r.answers(5);
    expect(all.every((e) => e.kind === 'reply')).toBe(true);
    for (const reply of [...replies, ...all]) expect(reply.text).not.toMatch(/ORDER-|349\.50|pr_/);
    expect(pushesTo(r, STAFF_GROUP)).toEqual([]);

    await r.app.stop();
    const [group] = pushesTo(r, STAFF_GROUP);
    expect(pushesTo(r, STAFF_GROUP)).toHaveLength(1);
    expect(pushesTo(r, OWNER).map((p) => p.text)).toEqual([group!.text]);
    const note = group!.text!;
    expect(note).toMatch(/^🔔 Slips that need a person \(5\)\n/);
    expect(note).toContain('⚠️ Several open orders have this amount: choose the one this slip paid\n฿200.00 · ');
    expect(note).toContain('⚠️ Wrong amount for order LINE-ORDER-0002 (due ฿349.50)\n฿120.00 · ');
    expect(note).toContain('⚠️ This slip paid someone else\n฿55.00 · ');
    expect(note).toContain('⚠️ Transferred after order ORDER-LATE expired\n฿70.00 · ');
    expect(note).toContain('⚠️ The same slip again, from another customer or used before\n฿200.00 · ');
    // The staff read no LINE user id, secret or token.
    for (const secret of [A, B, r.channelSecret, r.accessToken]) expect(note).not.toContain(secret);
  });

  it('pushes without a shutdown once the batch window has passed; a channel without staff targets pushes nothing', { timeout: 60_000 }, async () => {
    const r = await rig({ env: { LINE_STAFF_BATCH_MS: '200' } });
    const quiet = await rig({ env: { LINE_STAFF_BATCH_MS: '200' } });
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
    const qrcode = sandboxQr({ amount: 31 });
    for (const x of [r, quiet]) {
      await text(x, qrcode, A);
      await x.answers(1);
      await text(x, qrcode, B);
      await x.answers(2);
    }
    await eventually(async () => pushesTo(r, OWNER).length === 1);
    expect(pushesTo(r, OWNER)[0]!.text).toContain('The same slip again');
    await quiet.app.stop();
    expect(quiet.sim.log.filter((e) => e.kind === 'push')).toEqual([]);
  });

  it('tells the staff once when the credits of the account fall below its threshold, in the language of the channel', { timeout: 60_000 }, async () => {
    const r = await rig({ credits: 4, lang: 'th', env: { LINE_STAFF_BATCH_MS: '200' } });
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
    await r.app.admin.setCreditsLowAt('admin:test', r.accountId, 3);
    // 4 → 3 → 2: the second slip crosses below 3 and is told with the balance at the announcement, so the
    // third waits for that note (sent beside it, the third's hold could come first and the note say 1).
    for (const amount of [41, 42]) await text(r, sandboxQr({ amount }), A);
    await r.answers(2);
    await eventually(async () => pushesTo(r, OWNER).length === 1, 30_000);
    // The third (2 → 1) is the same fall: no second note, even once every batch is sent (stop flushes them).
    await text(r, sandboxQr({ amount: 43 }), A);
    await r.answers(3);
    await eventually(async () => (await r.credits()) === 1, 30_000);
    await r.app.stop();
    const notes = pushesTo(r, OWNER).map((p) => p.text!);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('🪫 เครดิตเหลือ 2 (ต่ำกว่า 3)');
    expect(notes[0]!.match(/🪫/g)).toHaveLength(1);
  });

  it('tells the staff of every channel once when a slip API reports its quota below UPSTREAM_QUOTA_LOW', { timeout: 60_000 }, async () => {
    // RDCW reports what is left with every answer: 3 → 2 → 1 → 0; below 2 is told once, at 1.
    const bank = await startSimulatedBank({ provider: 'rdcw', port: 0, behavior: { quota: 3 } });
    try {
      const UPSTREAMS = JSON.stringify([{ ...bankSimulator('rdcw').entry(bank.url, bank.credentials), name: 'rdcw-monthly' }]);
      const r = await rig({ credits: 10, lang: 'th', upstream: null, env: { UPSTREAMS, UPSTREAM_QUOTA_LOW: '2', LINE_STAFF_BATCH_MS: '200' } });
      await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
      for (const [i, amount] of [51, 52, 53].entries()) {
        await text(r, slipFor({ amount }), A);
        await r.answers(i + 1);
      }
      await eventually(async () => pushesTo(r, OWNER).length === 1, 30_000);
      expect(await r.credits()).toBe(7);
      // The reading at 0 is the same fall: no second note, even once every batch is sent (stop flushes them).
      await r.app.stop();
      const notes = pushesTo(r, OWNER).map((p) => p.text!);
      expect(notes).toEqual([expect.stringContaining('📉 เครือข่ายตรวจสลิป rdcw-monthly เหลือโควตา 1 ครั้ง')]);
    } finally {
      await bank.close();
    }
  });
});
