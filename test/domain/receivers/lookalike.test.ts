// A look-alike cannot pay a registered receiver: banks show only a few
// digits of a PromptPay id or account (`xxxxx4567x`, `xxx-x-x1234-x`), so
// anyone can pick one with the same visible digits; the name the bank prints
// is what tells the shop from him. Slips here are the sandbox's and the bank
// simulators' (src/upstream/sandbox/transaction.ts: the banks' masking), for
// real-world slip QRs (test/fixtures/slip-qr.json) and pinned receivers.
import { describe, expect, it } from 'vitest';
import { mapSlip } from '../../../src/domain/verify/mapping.js';
import { matchReceivers } from '../../../src/domain/receivers/policy.js';
import { parseSlipQr, writtenReference } from '../../../src/domain/verify/slip-qr.js';
import type { Receiver, VerifiedSlip } from '../../../src/domain/types.js';
import type { SandboxDetails } from '../../../src/upstream/sandbox/sandbox-details.js';
import { sandboxQr } from '../../../src/upstream/sandbox/sandbox-qr.js';
import { sandboxTransaction } from '../../../src/upstream/sandbox/transaction.js';
import vectors from '../../fixtures/slip-qr.json' with { type: 'json' };
import { verifiedSlip } from '../slip-fixtures.js';

const SHOP: Receiver = {
  id: 'rcv_shop',
  accountId: 'acc_1',
  kind: 'promptpay',
  bankCode: null,
  number: '0812345678',
  proxyType: 'MSISDN',
  nameTh: 'ร้านกาแฟ ดีดี',
  nameEn: null,
  label: null,
  active: true,
  createdAt: new Date(0),
};

/** The slip the bank (here the sandbox, as the simulators answer) reports for a QR. */
function bankSlip(qr: string): VerifiedSlip {
  const parsed = parseSlipQr(qr);
  if (!parsed.ok) throw new Error(parsed.reason);
  return mapSlip(sandboxTransaction(parsed.slip.sendingBank, writtenReference(qr, parsed.slip)), parsed.slip);
}
const paidTo = (details: SandboxDetails) => bankSlip(sandboxQr({ amount: 250, details }));

describe("the issue's attack: a PromptPay number with the shop's visible digits", () => {
  const attacker = paidTo({ receiverProxy: { type: 'MSISDN', digits: '0999945679' }, receiverName: 'MALLORY LIM' });

  it('is masked by the bank exactly like the shop’s own number', () => {
    expect(attacker.receiverPromptpay).toBe('xxxxx4567x');
    expect(paidTo({ receiverProxy: { type: 'MSISDN', digits: '0812345678' } }).receiverPromptpay).toBe('xxxxx4567x');
  });

  it('does not pay the shop: the name the bank printed is someone else’s', () => {
    for (const policy of ['report', 'require'] as const) {
      expect(matchReceivers(attacker, [SHOP], policy)).toEqual({ passed: false, policy, receiverId: null, label: null, matchedBy: [] });
    }
    // Nor with the name in both scripts as a real bank prints it, nor against a shop registered in both.
    const real = { ...attacker, receiverName: 'นาย มัลลอรี่ ลิ้ม', receiverNameEN: 'MR. MALLORY LIM' };
    expect(matchReceivers(real, [{ ...SHOP, nameEn: 'DEEDEE COFFEE' }], 'require').passed).toBe(false);
  });

  it('while the shop’s own slip, name cut or whole, pays it', () => {
    for (const name of ['ร้านกาแฟ ดีดี', 'ร้านกาแฟ ด', 'บจก. ร้านกาแฟ ดีดี']) {
      const own = paidTo({ receiverProxy: { type: 'MSISDN', digits: '0812345678' }, receiverName: name });
      expect(matchReceivers(own, [SHOP], 'require')).toMatchObject({ passed: true, receiverId: 'rcv_shop', matchedBy: ['account', 'name'] });
    }
  });
});

/** A receiver whose number fits the masked value's visible digits (masked positions as 0). */
function fitting(masked: string, over: Partial<Receiver>): Receiver {
  return { ...SHOP, number: masked.replace(/[^\dxX]/g, '').replace(/[xX]/g, '0'), ...over };
}

describe('real-world slip QRs, as the sandbox and the simulators answer them', () => {
  // The sandbox's receivers (transaction.ts): the shop and another person.
  const SHOP_NAMES = { nameTh: 'บริษัท ร้านกาแฟ ดีดี จำกัด', nameEn: 'DEEDEE COFFEE CO., LTD.' };
  const slips = vectors.valid.map((v) => ({ ref: v.transRef, slip: bankSlip(v.payload) }));

  it.each(slips)('$ref: digits that fit pay the receiver only under its own name', ({ slip }) => {
    const proxy = slip.receiverPromptpay !== '';
    const masked = proxy ? slip.receiverPromptpay : slip.receiverBankAccountNumber;
    expect(masked).toMatch(/^[x\d-]+$/);
    const kind = proxy ? ({ kind: 'promptpay', bankCode: null, proxyType: 'NATID' } as const) : ({ kind: 'bank', bankCode: slip.receiverBankCode, proxyType: null } as const);
    const shopsName = slip.receiverName.includes('ดีดี');
    const own = fitting(masked, { ...kind, ...(shopsName ? SHOP_NAMES : { nameTh: 'ประยุทธ์ ขายดี', nameEn: 'PRAYUT KHAIDEE' }) });
    expect(matchReceivers(slip, [own], 'require')).toMatchObject({ passed: true, matchedBy: ['account', 'name'] });
    // Same visible digits, another person or the other shop: never paid.
    for (const names of [
      { nameTh: 'มัลลอรี่ ลิ้ม', nameEn: 'MALLORY LIM' },
      shopsName ? { nameTh: 'ประยุทธ์ ขายดี', nameEn: 'PRAYUT KHAIDEE' } : SHOP_NAMES,
    ]) {
      expect(matchReceivers(slip, [fitting(masked, { ...kind, ...names })], 'require').passed).toBe(false);
    }
  });
});

describe('the name rule: tolerant of how banks print a name, intolerant of another person', () => {
  // Digits that agree, so the name alone decides.
  const slip = (receiverName: string, receiverNameEN = '') => verifiedSlip({ receiverName, receiverNameEN });
  const registered = (nameTh: string | null, nameEn: string | null = null): Receiver => ({ ...SHOP, kind: 'promptpay', number: '3101234561234', proxyType: 'NATID', nameTh, nameEn });
  const pays = (s: VerifiedSlip, r: Receiver) => matchReceivers(s, [r], 'require').passed;

  it.each([
    ['นาย สมชาย ใจ', 'สมชาย ใจดี'],
    ['นาย สมชาย ใxxx', 'นาย สมชาย ใจดี'],
    ['นายสมชาย ใจดี', 'สมชาย ใจดี'],
    ['MR. SOMCHAI J', 'SOMCHAI JAIDEE'],
    ['MR. SOMCHAI J***', 'Somchai  Jaidee'],
    ['น.ส. สุดา รักไทย', 'นางสาว สุดา รักไทย'],
    ['MISS SUDA R', 'SUDA RAKTHAI'],
    ['บจก. ดีดี', 'บริษัท ดีดี จำกัด'],
    ['บริษัท ร้านกาแฟ ดีดี จำ', 'บจก. ร้านกาแฟ ดีดี'],
    ['DEEDEE COFFEE CO., LT', 'DEEDEE COFFEE CO., LTD.'],
    // A long one-word shop name cut at the bank's width.
    ['บริษัท ร้านอาหารครัวคุณยา', 'บริษัท ร้านอาหารครัวคุณยายเชียงใหม่ จำกัด'],
  ])('%s is %s', (shown, name) => {
    expect(pays(slip(shown), registered(THAI(name) ? name : null, THAI(name) ? null : name))).toBe(true);
  });

  it.each([
    ['MR. SOMSAK JAIDEE', 'SOMCHAI JAIDEE'],
    ['นาย สมศักดิ์ ใจดี', 'สมชาย ใจดี'],
    ['นาย สมชาย รักไทย', 'สมชาย ใจดี'],
    ['MR. SOMCHAI LI', 'SOMCHAI JAIDEE'],
    ['ร้านกาแฟ ดีใจ', 'ร้านกาแฟ ดีดี'],
    ['ร้านกาแฟ ดีดี เดลิเวอรี่', 'ร้านกาแฟ ดีดี'],
    ['ร้าน กา', 'ร้านกาแฟ ดีดี'],
    ['บจก. ดีดีมาร์ท', 'บริษัท ดีดี จำกัด'],
    ['MALLORY LIM', 'DEEDEE COFFEE'],
  ])('%s is not %s', (shown, name) => {
    expect(pays(slip(shown), registered(THAI(name) ? name : null, THAI(name) ? null : name))).toBe(false);
  });

  it('needs every name the slip shows in a script the receiver is registered in to agree, and one to', () => {
    const both = registered('ร้านกาแฟ ดีดี', 'DEEDEE COFFEE');
    expect(pays(slip('ร้านกาแฟ ดีดี', 'DEEDEE COFFEE CO., LTD.'), both)).toBe(true);
    expect(pays(slip('ร้านกาแฟ ดีดี', 'MALLORY LIM'), both)).toBe(false);
    expect(pays(slip('นาย มัลลอรี่ ลิ้ม', 'DEEDEE COFFEE'), both)).toBe(false);
    // An English name cannot be checked against a Thai-only registration: the Thai one decides.
    expect(pays(slip('ร้านกาแฟ ดีดี', 'MALLORY LIM'), registered('ร้านกาแฟ ดีดี'))).toBe(true);
    // A slip that shows only a name the registration cannot be compared with is not shown to be the shop's.
    expect(pays(slip('', 'DEEDEE COFFEE'), registered('ร้านกาแฟ ดีดี'))).toBe(false);
  });

  it('lets digits decide alone only when the slip shows no name, and the name only when it shows no digits', () => {
    const shop = registered('ร้านกาแฟ ดีดี');
    expect(matchReceivers(slip('', ''), [shop], 'report')).toMatchObject({ passed: true, matchedBy: ['account'] });
    // A title or a mask is no name.
    expect(matchReceivers(slip('นาย', 'MR. ***'), [shop], 'report')).toMatchObject({ passed: true, matchedBy: ['account'] });
    const masked = verifiedSlip({ receiverPromptpay: 'x-xxxx-xxxxx-xx-x', receiverName: 'ร้านกาแฟ ดีดี', receiverNameEN: '' });
    expect(matchReceivers(masked, [shop], 'report')).toMatchObject({ passed: true, matchedBy: ['name'] });
    expect(matchReceivers({ ...masked, receiverName: 'นาย มัลลอรี่ ลิ้ม' }, [shop], 'report').passed).toBe(false);
    expect(matchReceivers({ ...masked, receiverName: '' }, [shop], 'report').passed).toBe(false);
  });

  it('pays a receiver with no name registered only by slips that show none', () => {
    const nameless = registered(null, null);
    expect(pays(slip('ร้านกาแฟ ดีดี', 'DEEDEE COFFEE'), nameless)).toBe(false);
    expect(matchReceivers(slip('', ''), [nameless], 'report')).toMatchObject({ passed: true, matchedBy: ['account'] });
  });

  it('pays a bank account only at the bank the slip names, names agreeing or not', () => {
    const account = { ...registered('บริษัท ดีดี จำกัด'), kind: 'bank' as const, bankCode: '014', number: '1233131090', proxyType: null };
    const toAccount = verifiedSlip({ receiverBankAccountNumber: 'xxx-x-x3109-x', receiverPromptpay: '', receiverProxyType: '' });
    expect(pays(toAccount, account)).toBe(true);
    expect(pays({ ...toAccount, receiverBankCode: '004' }, account)).toBe(false);
    expect(pays({ ...toAccount, receiverBankAccountNumber: 'xxx-x-xxxxx-x', receiverBankCode: '004' }, account)).toBe(false);
  });
});

function THAI(s: string): boolean {
  return /[\u0E00-\u0E7F]/.test(s);
}
