// LINE channels that match payment requests (SQLite, the simulator): a slip
// sent in the chat pays the one pending request of its receiver and amount
// through the verify path's paying rules (status paid, the signed
// payment_request.paid event written, the reply naming the order); the same
// slip again pays nothing more; an amount no request has, several requests
// of one amount, an amount that differs from the only open order, and a
// channel without the option each pay nothing and say so, never naming an
// order the slip did not pay; a late transfer
// raises payment_request.late_transfer and keeps its verdict, as on the
// verify route.
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/child.js';
import { startLineRig, type LineRig } from '../helpers/line.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { slipFor } from '../payments/helpers.js';

const USER = 'U0000000000000000000000000000abcd';
// The webhook receiver listens on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true' };
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

async function shopRig(opts: { matchPaymentRequests?: boolean; lang?: 'th' | 'en' } = {}): Promise<LineRig & { receiverId: string }> {
  const rig = await startLineRig({ matchPaymentRequests: opts.matchPaymentRequests ?? true, lang: opts.lang ?? 'en', env: FAST, credits: 10 });
  cleanup.push(() => rig.stop());
  const receiver = await rig.app.admin.addReceiver('test', { accountId: rig.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
  return Object.assign(rig, { receiverId: receiver.id });
}

async function order(rig: LineRig, reference: string, baht: number) {
  const made = await rig.app.payments.create(rig.accountId, { amount: Math.round(baht * 100), reference, expiresInMinutes: 30 });
  return made.request;
}

const status = async (rig: LineRig, id: string) => (await rig.app.store.getPaymentRequest(id))!.status;
const sendImage = (rig: LineRig, qrcode: string) => rig.control(`/sim/send-image?user=${USER}&qrcode=${encodeURIComponent(qrcode)}`);
const sendText = (rig: LineRig, qrcode: string) => rig.control(`/sim/send-text?user=${USER}`, { text: qrcode });

describe('LINE payment request matching', () => {
  it('a slip picture pays the pending order of its amount, once: status paid, payment_request.paid written, the reply names the order; the same slip again is answered from the record and pays no other order', { timeout: 60_000 }, async () => {
    const r = await shopRig();
    const hooks: Receiver = await startReceiver();
    cleanup.push(() => hooks.close());
    await r.app.webhooks.add('admin:test', r.accountId, { url: hooks.url, events: ['payment_request.paid'] });
    const other = await order(r, 'order-8', 120);
    const request = await order(r, 'order-9', 480.5);
    const qrcode = slipFor({ amount: 480.5 });

    await sendImage(r, qrcode);
    const [paid] = await r.answers(1);
    expect(paid!.text).toMatch(/^✅ Slip verified: the transfer is real\.\nAmount ฿480\.50\n.+\n.+\nPaid order order-9$/);
    const stored = (await r.app.store.getPaymentRequest(request.id))!;
    expect(stored).toMatchObject({ status: 'paid', paidBy: { amount: 48050 } });
    expect(await status(r, other.id)).toBe('pending');
    await eventually(async () => hooks.received.length === 1);
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({ type: 'payment_request.paid', data: { id: request.id, reference: 'order-9', status: 'paid' } });

    // Sent again by the same customer, even while another order of the same amount is open: its result again, from the record.
    const second = await order(r, 'order-10', 480.5);
    await sendText(r, qrcode);
    const again = (await r.answers(2))[1]!.text!;
    expect(again).toMatch(/^ℹ️ This slip was received already; its result again: the transfer is real\.\nAmount ฿480\.50\n.+\n.+\nPaid order order-9$/);
    expect(again).not.toContain('order-10');
    expect(await status(r, second.id)).toBe('pending');
    // One verification (charged), the re-send free; one payment, one event written.
    expect(await r.credits()).toBe(9);
    const written = (await r.app.store.listWebhookDeliveries({ accountId: r.accountId, limit: 10 })).items;
    expect(written.map((d) => d.type)).toEqual(['payment_request.paid']);
  });

  it('an amount no open order has, several open orders of one amount, and an amount differing from the only open order: verified, nothing paid, each said', { timeout: 60_000 }, async () => {
    const r = await shopRig();
    const a = await order(r, 'order-21', 100);
    const b = await order(r, 'order-22', 200);
    await sendText(r, slipFor({ amount: 150 }));
    expect((await r.answers(1))[0]!.text).toMatch(/^✅ Slip verified[^]*No open order of this amount was found; the shop will check it\.$/);

    const c = await order(r, 'order-23', 200);
    await sendText(r, slipFor({ amount: 200 }));
    expect((await r.answers(2))[1]!.text).toContain('Several open orders have this amount');
    for (const id of [a.id, b.id, c.id]) expect(await status(r, id)).toBe('pending');

    const solo = await shopRig({ lang: 'th' });
    const due = await order(solo, 'INV-300', 300);
    await sendText(solo, slipFor({ amount: 299 }));
    // The open order is perhaps another customer's: neither it nor its amount is named.
    const differs = (await solo.answers(1))[0]!.text!;
    expect(differs).toMatch(/^✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง\nจำนวนเงิน ฿299\.00\n.+\n.+\nร้านค้าจะตรวจสอบว่าสลิปนี้ชำระคำสั่งซื้อใด แล้วติดต่อกลับ$/);
    expect(differs).not.toMatch(/INV-300|300\.00/);
    expect(await status(solo, due.id)).toBe('pending');
  });

  it('the order a slip matches but cannot pay is not named in the chat: expired before the transfer (announced late_transfer), placed after it; an in-time slip checked late pays it', { timeout: 60_000 }, async () => {
    const r = await shopRig({ lang: 'th' });
    const hooks: Receiver = await startReceiver();
    cleanup.push(() => hooks.close());
    await r.app.webhooks.add('admin:test', r.accountId, { url: hooks.url, events: ['payment_request.paid', 'payment_request.late_transfer'] });
    // Still pending (the expiry pass has not run), its window over ten minutes ago.
    const request = await order(r, 'order-41', 60);
    const createdAt = new Date(Date.now() - 30 * 60_000);
    const lapsed = { ...request, id: `${request.id.slice(0, -4)}beef`, reference: 'order-42', amount: 7000, requestedAmount: 7000, createdAt, expiresAt: new Date(createdAt.getTime() + 10 * 60_000) };
    await r.app.store.createPaymentRequest(lapsed);
    await sendText(r, slipFor({ amount: 70 }));
    // Told to the staff, not the chat: the order may be another customer's.
    const lateReply = (await r.answers(1))[0]!.text!;
    expect(lateReply).toMatch(/^✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง\nจำนวนเงิน ฿70\.00\n.+\n.+\nร้านค้าจะตรวจสอบว่าสลิปนี้ชำระคำสั่งซื้อใด แล้วติดต่อกลับ$/);
    expect(lateReply).not.toContain('order-42');
    expect(await status(r, lapsed.id)).toBe('pending');
    // The same paying rules as the verify route: the late transfer is announced and its verdict kept.
    await eventually(async () => hooks.received.length === 1);
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({ type: 'payment_request.late_transfer', data: { id: lapsed.id, reference: 'order-42', transfer: { amount: 70 } } });
    const [late] = (await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 1 })).items;
    expect(late!.payment).toEqual({ requestId: lapsed.id, status: 'pending', reason: 'expired' });

    await sendText(r, slipFor({ amount: 60, paidAt: new Date(Date.now() - 60 * 60_000) }));
    expect((await r.answers(2))[1]!.text).toContain('ร้านค้าจะตรวจสอบว่าสลิปนี้ชำระคำสั่งซื้อใด');
    expect((await r.answers(2))[1]!.text).not.toContain('order-41');
    expect(await status(r, request.id)).toBe('pending');

    // Transferred inside the lapsed order's window, checked now: it pays it.
    await sendText(r, slipFor({ amount: 70, paidAt: new Date(createdAt.getTime() + 60_000) }));
    expect((await r.answers(3))[2]!.text).toContain('order-42');
    expect(await status(r, lapsed.id)).toBe('paid');
    await eventually(async () => hooks.received.length === 2);
    expect(JSON.parse(hooks.received[1]!.body)).toMatchObject({ type: 'payment_request.paid', data: { id: lapsed.id } });
    // All charged: the bank confirmed every slip.
    expect(await r.credits()).toBe(7);
  });

  it('a channel without the option pays no request, even one the slip would pay', { timeout: 60_000 }, async () => {
    const r = await shopRig({ matchPaymentRequests: false });
    const request = await order(r, 'order-31', 75);
    await sendText(r, slipFor({ amount: 75 }));
    const [answer] = await r.answers(1);
    expect(answer!.text).toMatch(/^✅ Slip verified: the transfer is real\.\nAmount ฿75\.00\n.+\n.+$/);
    expect(await status(r, request.id)).toBe('pending');
  });
});
