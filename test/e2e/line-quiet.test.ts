// Issue #47 through the simulator and a real slipgate (SQLite): a shop's
// chat stays quiet (only a message carrying a slip is answered, unless the
// channel turns the hint on); a customer who sends their slip again reads
// its result again, free, with no bank call; another customer sending the
// same slip is never answered as a fresh payment and reads none of its
// details; and no reply names an order the slip did not pay.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { counting } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { rigsOfThisFile, sendText, type LineRig } from '../helpers/line.js';
import { scrape } from '../metrics/scrape.js';
import { slipFor } from '../payments/helpers.js';

const A = 'U000000000000000000000000000000a1';
const B = 'U000000000000000000000000000000b2';
const rig = rigsOfThisFile();
const text = (r: LineRig, body: string, user = A) => sendText(r, body, user);
const image = (r: LineRig, qrcode: string, user = A) => r.control(`/sim/send-image?user=${user}&qrcode=${encodeURIComponent(qrcode)}`);
const events = async (r: LineRig, outcome: string) => (await scrape(r.app.adminUrl)).value('slipgate_line_events_total', { outcome });
/** A product photo: a real JPEG with no QR in it. */
const photo = () => sharp({ create: { width: 480, height: 360, channels: 3, background: '#c03030' } }).jpeg().toBuffer();

describe('LINE: quiet by default', () => {
  it('answers only the message that carries a slip: greetings, questions, stickers, photos and a QR that is no slip get no bot message and cost nothing', { timeout: 60_000 }, async () => {
    const bank = counting(new SandboxUpstream());
    const r = await rig({ lang: 'th', upstream: bank });
    await text(r, 'สวัสดีค่ะ');
    await r.control(`/sim/send-sticker?user=${A}`);
    await text(r, 'มีสีแดงไหมคะ');
    await r.control(`/sim/send-image?user=${A}`, await photo());
    await image(r, 'https://shop.example/item/7');
    await eventually(async () => (await events(r, 'quiet')) === 5);
    expect(r.sim.log).toEqual([]);
    expect(r.sim.contentRequests).toHaveLength(2);
    // A slip QR inside a sentence is a slip.
    await text(r, `โอนแล้วค่ะ ${sandboxQr({ amount: 59 })} ขอบคุณค่ะ`);
    const answers = await r.answers(1);
    expect(answers.map((a) => a.text)).toEqual([expect.stringMatching(/^✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง\nจำนวนเงิน ฿59\.00/)]);
    expect(r.sim.log.filter((e) => e.kind === 'loading')).toHaveLength(1);
    expect(bank.calls).toBe(1);
    expect(await r.credits()).toBe(4);
    // Nothing of the chat is recorded: one verification, no failure.
    expect((await r.app.store.listRequestErrors({ accountId: r.accountId, limit: 10 })).items).toEqual([]);
    expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toHaveLength(1);
  });

  it('with hints turned on for the channel, chat gets the hint and a picture without a slip QR "send a clearer one"; turned off, quiet again', { timeout: 60_000 }, async () => {
    const r = await rig({ lang: 'th' });
    await r.app.lineChannels.setHints('admin:test', r.channelId, true);
    await text(r, 'สวัสดีค่ะ ส่งสลิปแล้วนะ');
    await r.answers(1);
    await r.control('/sim/send-sticker');
    await r.answers(2);
    await r.control('/sim/send-image', await photo());
    const answers = await r.answers(3);
    expect(answers.map((a) => a.text)).toEqual([
      expect.stringContaining('ส่งรูปสลิปโอนเงิน'),
      expect.stringContaining('ส่งรูปสลิปโอนเงิน'),
      expect.stringContaining('อ่าน QR บนสลิปไม่ได้'),
    ]);
    expect((await r.app.store.listRequestErrors({ accountId: r.accountId, limit: 10 })).items).toEqual([]);
    expect(await r.credits()).toBe(5);

    await r.app.lineChannels.setHints('admin:test', r.channelId, false);
    await r.control('/sim/send-sticker');
    await eventually(async () => (await events(r, 'quiet')) === 1);
    expect(r.sim.log.filter((e) => e.kind !== 'loading')).toHaveLength(3);
  });
});

describe('LINE: a slip sent again', () => {
  it('from the customer who sent it: its result again, from the record (picture or text), no bank call, no credit', { timeout: 60_000 }, async () => {
    const bank = counting(new SandboxUpstream());
    const r = await rig({ lang: 'th', upstream: bank });
    const qrcode = sandboxQr({ amount: 420 });
    await image(r, qrcode);
    await r.answers(1);
    await image(r, qrcode);
    await r.answers(2);
    await text(r, qrcode);
    const answers = (await r.answers(3)).map((a) => a.text!);
    expect(answers[0]).toMatch(/^✅ ตรวจสอบสลิปแล้ว: ยอดโอนถูกต้อง\nจำนวนเงิน ฿420\.00\n/);
    for (const again of answers.slice(1)) {
      expect(again).toMatch(/^ℹ️ ได้รับสลิปนี้แล้ว ผลการตรวจสอบเดิม: ยอดโอนถูกต้อง\nจำนวนเงิน ฿420\.00\n/);
      expect(again).not.toContain('เคยถูกใช้แล้ว');
    }
    expect(bank.calls).toBe(1);
    expect(await r.credits()).toBe(4);
    expect((await r.app.store.listVerifyTransactions({ accountId: r.accountId, limit: 10 })).items).toHaveLength(1);
    expect(await events(r, 'resent')).toBe(2);
  });

  it('from another customer, or used before through the API: "sent before", none of its details, no bank call, no credit; with checks off too', { timeout: 60_000 }, async () => {
    const bank = counting(new SandboxUpstream());
    const r = await rig({ upstream: bank, credits: 5 });
    const qrcode = sandboxQr({ amount: 777.25 });
    await image(r, qrcode, A);
    await r.answers(1);
    await image(r, qrcode, B);
    const [, other] = await r.answers(2);
    expect(other).toMatchObject({ to: B, text: 'ℹ️ This slip was sent before; the shop will check it.' });
    expect(bank.calls).toBe(1);
    expect(await r.credits()).toBe(4);

    // A slip the shop's website verified through the API, then sent in the chat.
    const viaApi = sandboxQr({ amount: 12 });
    expect((await r.app.verify(r.apiKey, viaApi)).body).toMatchObject({ status: 'success' });
    await text(r, viaApi, B);
    expect((await r.answers(3))[2]).toMatchObject({ to: B, text: 'ℹ️ This slip was sent before; the shop will check it.' });
    expect(bank.calls).toBe(2);
    expect(await r.credits()).toBe(3);
    expect(await events(r, 'sent_before')).toBe(2);

    // Checks off: still "sent before" to another customer (#47: a used slip is never a fresh payment in a chat);
    // the customer who sent it first still reads it from the record. Neither asks the bank or costs a credit.
    await r.app.lineChannels.disconnect('admin:test', r.channelId);
    await r.app.lineChannels.connect('admin:test', r.accountId, { channelId: r.channelId, channelSecret: r.channelSecret, accessToken: r.accessToken, lang: 'en', checks: false });
    await text(r, qrcode, B);
    expect((await r.answers(4))[3]).toMatchObject({ to: B, text: 'ℹ️ This slip was sent before; the shop will check it.' });
    await text(r, qrcode, A);
    expect((await r.answers(5))[4]!.text).toMatch(/^ℹ️ This slip was received already/);
    expect(bank.calls).toBe(2);
    expect(await r.credits()).toBe(3);
  });
});

describe('LINE: private replies', () => {
  it("a 120-baht slip from any customer while another customer's ฿349.50 order is open names no other order, amount, reference or id", { timeout: 60_000 }, async () => {
    for (const lang of ['th', 'en'] as const) {
      const r = await rig({ lang, matchPaymentRequests: true, credits: 10 });
      await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
      const open = (await r.app.payments.create(r.accountId, { amount: 34950, reference: 'LINE-ORDER-0002', expiresInMinutes: 30 })).request;
      await text(r, slipFor({ amount: 120 }), B);
      const [answer] = await r.answers(1);
      expect(answer!.text).toContain(lang === 'th' ? 'จำนวนเงิน ฿120.00' : 'Amount ฿120.00');
      for (const secret of ['LINE-ORDER-0002', '349', open.id]) expect(answer!.text).not.toContain(secret);
      expect((await r.app.store.getPaymentRequest(open.id))!.status).toBe('pending');
    }
  });
});
