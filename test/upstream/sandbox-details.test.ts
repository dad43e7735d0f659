// What `sandbox qr` pins travels in the slip's reference and comes back from
// the sandbox as pinned, on any server, with no state.
import { describe, expect, it } from 'vitest';
import type { RawParty, RawSlipData } from '../../src/domain/types.js';
import { parseSlipQr, writtenReference } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxDetailsError } from '../../src/upstream/sandbox/sandbox-details.js';
import { sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';

/** The sandbox's answer, with its parties (always present in the sandbox's answers) typed as such. */
function answer(qr: string) {
  const parsed = parseSlipQr(qr);
  if (!parsed.ok) throw new Error(parsed.reason);
  const tx = sandboxTransaction(parsed.slip.sendingBank, writtenReference(qr, parsed.slip));
  return { ...tx, sender: party(tx.sender), receiver: party(tx.receiver) };
}

function party(p: RawSlipData['sender']): RawParty {
  if (p === '') throw new Error('the sandbox always names both parties');
  return p;
}

describe('sandbox slips with pinned details', () => {
  it('reports the receiver account masked, the names and the time it was given, in a valid QR', () => {
    const paidAt = new Date('2026-11-25T07:05:00Z');
    const tx = answer(sandboxQr({ amount: 250, details: { receiverAccount: '1233131090', receiverName: 'ร้านกาแฟ ดีดี', paidAt } }));
    const other = answer(sandboxQr({ details: { senderName: 'Somchai', receiverName: 'DEEDEE' } }));
    expect(tx.amount).toBe('250.00');
    expect(tx.receiver.account).toEqual({ type: 'BANKAC', value: 'xxx-x-x3109-x' });
    expect(tx.receiver.proxy).toBe('');
    expect(tx.receiver.displayName).toBe('ร้านกาแฟ ดีดี');
    expect([other.sender.displayName, other.sender.name, other.receiver.name]).toEqual(['Somchai', 'Somchai', 'DEEDEE']);
    expect([tx.transDate, tx.transTime]).toEqual(['20261125', '14:05:00']);
  });

  it('keeps a Thai name out of the English fields, as a bank with no English name on record does; a Latin name fills both', () => {
    const thai = answer(sandboxQr({ details: { receiverName: 'ร้านกาแฟ ดีดี', senderName: 'นาย สมชาย Jr' } }));
    expect([thai.receiver.displayName, thai.receiver.name]).toEqual(['ร้านกาแฟ ดีดี', '']);
    expect([thai.sender.displayName, thai.sender.name]).toEqual(['นาย สมชาย Jr', '']);
    const latin = answer(sandboxQr({ details: { receiverName: 'DEEDEE COFFEE', senderName: 'Somchai' } }));
    expect([latin.receiver.displayName, latin.receiver.name, latin.sender.displayName, latin.sender.name]).toEqual(['DEEDEE COFFEE', 'DEEDEE COFFEE', 'Somchai', 'Somchai']);
  });

  it('pays a pinned receiving bank, or a PromptPay target instead of an account', () => {
    const atBank = answer(sandboxQr({ details: { receiverAccount: '020012345678', receiverBank: '030', receiverName: 'ร้านกาแฟ ดีดี' } }));
    expect(atBank.receivingBank).toBe('030');
    expect(atBank.receiver.account).toEqual({ type: 'BANKAC', value: 'xxxxxxx4567x' });
    const byPromptPay = answer(sandboxQr({ details: { receiverProxy: { type: 'MSISDN', digits: '0812345678' }, receiverName: 'DEEDEE' } }));
    expect(byPromptPay.receivingBank).toBe('004');
    expect([byPromptPay.receiver.proxy, byPromptPay.receiver.account]).toEqual([{ type: 'MSISDN', value: 'xxxxx4567x' }, '']);
    const wallet = answer(sandboxQr({ details: { receiverProxy: { type: 'EWALLETID', digits: '123456789012345' }, receiverBank: '014' } }));
    expect([wallet.receivingBank, wallet.receiver.proxy]).toEqual(['014', { type: 'EWALLETID', value: 'xxxxxxxxxx1234x' }]);
    expect(() => sandboxQr({ details: { receiverBank: '4' } })).toThrow(SandboxDetailsError);
  });

  it('answers the same slip the same way whenever it is asked', () => {
    const qr = sandboxQr({ details: { receiverName: 'DEEDEE' } });
    const parsed = parseSlipQr(qr);
    if (!parsed.ok) throw new Error(parsed.reason);
    const later = sandboxTransaction(parsed.slip.sendingBank, writtenReference(qr, parsed.slip), new Date(Date.now() + 40 * 86_400_000));
    expect(answer(qr).receiver).toEqual(later.receiver);
    expect(answer(qr).sender).toEqual(later.sender);
  });

  it('gives every generated slip its own reference even with the same details', () => {
    const refs = new Set(Array.from({ length: 50 }, () => sandboxQr({ details: { receiverAccount: '1234' } })));
    expect(refs.size).toBe(50);
  });

  it('leaves plain sandbox slips as they were', () => {
    const tx = answer(sandboxQr({ amount: 12.5 }));
    expect(tx.amount).toBe('12.50');
    expect(['ร้านกาแฟ ดีดี', 'บจก. ร้านกาแฟ ดีดี', 'นาย ประยุทธ์ ขายดี']).toContain(tx.receiver.displayName);
  });

  it('carries a late slip\'s publication time beside every other detail: not found before it, the pinned success from it', async () => {
    const made = Date.parse('2026-11-28T10:00:00.400Z');
    const paidAt = new Date('2026-11-28T09:59:00Z');
    const qr = sandboxQr({ outcome: 'late', afterSeconds: 2, now: made, amount: 250, details: { receiverProxy: { type: 'MSISDN', digits: '0812345678' }, receiverName: 'SOMCHAI', paidAt } });
    expect(parseSlipQr(qr).ok).toBe(true);
    expect(answer(qr)).toMatchObject({ amount: '250.00', receiver: { displayName: 'SOMCHAI', proxy: { type: 'MSISDN', value: 'xxxxx4567x' } }, transTime: '16:59:00' });
    let clock = made;
    const sandbox = new SandboxUpstream('sandbox', 0, () => clock);
    const parsed = parseSlipQr(qr);
    if (!parsed.ok) throw new Error(parsed.reason);
    const ask = async () => sandbox.verify({ ...parsed.slip, transRef: writtenReference(qr, parsed.slip), qrcode: qr, requestId: 'req_late' }, new AbortController().signal);
    expect(await ask()).toMatchObject({ ok: false, kind: 'slip_not_found' });
    clock = made + 2_000; // rounded up to a whole second: never earlier than asked
    expect(await ask()).toMatchObject({ ok: false, kind: 'slip_not_found' });
    clock = Date.parse('2026-11-28T10:00:03Z');
    expect(await ask()).toMatchObject({ ok: true, data: { amount: '250.00' } });
    expect(() => sandboxQr({ outcome: 'success', afterSeconds: 2 })).toThrow(/late outcome/);
  });

  it('refuses what the reference cannot carry, with a reason', () => {
    const long = 'ร้านกาแฟ ดีดี สาขาสยามพารากอน';
    expect(() => sandboxQr({ details: { receiverName: long, senderName: long } })).toThrow(SandboxDetailsError);
    expect(() => sandboxQr({ details: { receiverName: '店' } })).toThrow(/Thai letters, ASCII/);
    expect(() => sandboxQr({ details: { receiverAccount: '12' } })).toThrow(/4 to 16 digits/);
  });
});
