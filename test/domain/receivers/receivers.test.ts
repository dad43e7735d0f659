// Registered receivers as pure rules: what may be registered (bank account
// lengths, PromptPay formats and check digits, names) and which registered
// receiver a slip paid.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.js';
import { bankTarget, promptPayTarget, receiverLabel, receiverName, thaiIdCheckDigitOk } from '../../../src/domain/receivers/input.js';
import { matchReceivers } from '../../../src/domain/receivers/policy.js';
import type { Receiver } from '../../../src/domain/types.js';
import { verifiedSlip } from '../slip-fixtures.js';

const refused = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected an InputError');
};

describe('what may be registered', () => {
  it('takes a known bank account of its bank length, separators dropped', () => {
    expect(bankTarget('004', '123-4-56789-0')).toEqual({ kind: 'bank', bankCode: '004', number: '1234567890', proxyType: null });
    expect(bankTarget('030', '0200 1234 5678')).toMatchObject({ number: '020012345678' });
  });

  it('refuses an unknown bank code and an account number of the wrong length', () => {
    expect(refused(() => bankTarget('999', '1234567890'))).toMatch(/unknown bank code "999"/);
    expect(refused(() => bankTarget('4', '1234567890'))).toMatch(/unknown bank code/);
    expect(refused(() => bankTarget('004', '123456789'))).toBe('a KBANK (004) account number has 10 digits, not 9');
    expect(refused(() => bankTarget('030', '1234567890'))).toBe('a GSB (030) account number has 12 digits, not 10');
    expect(refused(() => bankTarget('004', '12345abcde'))).toMatch(/must be digits/);
  });

  it('normalises PromptPay mobile numbers and checks national and tax IDs by their check digit', () => {
    for (const mobile of ['0812345678', '081-234-5678', '66812345678', '+66812345678', '+66 81 234 5678']) {
      expect(promptPayTarget(mobile)).toEqual({ kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN' });
    }
    expect(thaiIdCheckDigitOk('1234567890121')).toBe(true);
    expect(promptPayTarget('1-2345-67890-12-1')).toMatchObject({ number: '1234567890121', proxyType: 'NATID' });
    expect(promptPayTarget('0105536000000'.slice(0, 12) + checkDigit('010553600000'))).toMatchObject({ proxyType: 'NATID' });
    expect(promptPayTarget('123456789012345')).toMatchObject({ number: '123456789012345', proxyType: 'EWALLETID' });
  });

  it('refuses PromptPay ids that fail their format or check digit', () => {
    expect(refused(() => promptPayTarget('1234567890122'))).toMatch(/check digit/);
    expect(refused(() => promptPayTarget('+1 812345678'))).toMatch(/\+66/);
    expect(refused(() => promptPayTarget('0012345678'))).toMatch(/starts with 0/);
    expect(refused(() => promptPayTarget('12345'))).toMatch(/mobile number \(10 digits\)/);
    expect(refused(() => promptPayTarget('08123x5678'))).toMatch(/must be digits/);
  });

  it('refuses names with control characters, over the length cap or without a name', () => {
    expect(receiverName('  บจก.  ดีดี  ', 'name')).toBe('บจก. ดีดี');
    expect(receiverName('', 'name')).toBeNull();
    expect(refused(() => receiverName('DEEDEE\nCOFFEE', 'name'))).toBe('name must not contain control characters');
    expect(refused(() => receiverName('x'.repeat(121), 'name'))).toBe('name must be at most 120 characters');
    expect(refused(() => receiverName('บจก.', 'name'))).toMatch(/must contain a name/);
    expect(refused(() => receiverLabel('till\u00071'))).toBe('label must not contain control characters');
  });
});

function checkDigit(first12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (13 - i);
  return String((11 - (sum % 11)) % 10);
}

const receiver = (over: Partial<Receiver>): Receiver => ({
  id: 'rcv_1',
  accountId: 'acc_1',
  kind: 'bank',
  bankCode: '014',
  number: '1233131090',
  proxyType: null,
  nameTh: 'บริษัท ดีดี จำกัด',
  nameEn: null,
  label: 'front till',
  active: true,
  createdAt: new Date(),
  ...over,
});

describe('which registered receiver a slip paid', () => {
  const toAccount = verifiedSlip({ receiverBankAccountNumber: 'xxx-x-x3109-x', receiverPromptpay: '', receiverProxyType: '' });

  it('matches by the account digits at the same bank, and reports the name agreeing too', () => {
    expect(matchReceivers(toAccount, [receiver({})], 'report')).toEqual({ passed: true, policy: 'report', receiverId: 'rcv_1', label: 'front till', matchedBy: ['account', 'name'] });
  });

  it('does not let the name stand in for digits that disagree, another bank, or an inactive receiver', () => {
    const none = { passed: false, policy: 'require', receiverId: null, label: null, matchedBy: [] };
    expect(matchReceivers(toAccount, [receiver({ number: '1233131080' })], 'require')).toEqual(none);
    expect(matchReceivers(toAccount, [receiver({ bankCode: '004' })], 'require')).toEqual(none);
    expect(matchReceivers(toAccount, [receiver({ active: false })], 'require')).toEqual(none);
    // Paid to someone's PromptPay: the bank receiver's name agreeing proves nothing.
    expect(matchReceivers(verifiedSlip(), [receiver({})], 'require')).toEqual(none);
  });

  it('matches a PromptPay target by its digits and its name, never by the digits against another name', () => {
    const pp = receiver({ id: 'rcv_2', kind: 'promptpay', bankCode: null, number: '3101234561234', proxyType: 'NATID', nameTh: 'บจก. ดีดี', label: null });
    expect(matchReceivers(verifiedSlip(), [receiver({}), pp], 'report')).toMatchObject({ passed: true, receiverId: 'rcv_2', matchedBy: ['account', 'name'] });
    expect(matchReceivers(verifiedSlip(), [receiver({}), { ...pp, nameTh: 'someone else' }], 'report')).toMatchObject({ passed: false, receiverId: null });
  });

  it('lets the name decide only when the slip shows no digits of the receiver kind', () => {
    const masked = verifiedSlip({ receiverBankAccountNumber: 'xxx-x-xxxxx-x', receiverPromptpay: '', receiverName: 'บจก. ดีดี', receiverNameEN: '' });
    expect(matchReceivers(masked, [receiver({})], 'require')).toMatchObject({ passed: true, matchedBy: ['name'] });
    expect(matchReceivers(masked, [receiver({ nameTh: 'ร้านอื่น' })], 'require')).toMatchObject({ passed: false });
  });
});
