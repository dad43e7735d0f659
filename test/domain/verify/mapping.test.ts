import { describe, expect, it } from 'vitest';
import { bangkokTime, mapSlip, SlipMappingError } from '../../../src/domain/verify/mapping.js';
import { rawSlipData, SLIP_REF } from '../slip-fixtures.js';

const raw = rawSlipData;

/** The QR's own values (the answer was checked to be about them). */
const REF = SLIP_REF;

describe('mapSlip', () => {
  it('maps every field of the success data', () => {
    const data = raw();
    expect(mapSlip(data, REF)).toStrictEqual({
      amount: 100.38,
      dateTime: '2025-10-05T22:09:59+07:00',
      timestamp: 1759676999,
      transactionId: '015278121420BTF05718',
      senderBankAccountNumber: 'xxx-x-x1234-x',
      senderName: 'นาย สมชาย ใ',
      senderNameEN: 'MR. SOMCHAI J',
      senderBank: 'KBANK',
      senderBankCode: '004',
      receiverBankAccountNumber: '',
      receiverName: 'บจก. ดีดี',
      receiverNameEN: 'DEEDEE CO',
      receiverBank: 'SCB',
      receiverBankCode: '014',
      receiverPromptpay: 'x-xxxx-xxxx1-23-4',
      receiverProxyType: 'NATID',
      rawData: data,
    });
  });

  it('passes rawData through as the very same object', () => {
    const data = raw({ extra: { nested: [1, '2', null] } });
    const copy = structuredClone(data);
    expect(mapSlip(data, REF).rawData).toBe(data);
    expect(data).toStrictEqual(copy);
  });

  it('reads amounts sent as numbers and as text alike', () => {
    expect(mapSlip(raw({ amount: 100.38 }), REF).amount).toBe(100.38);
    expect(mapSlip(raw({ amount: '100.38' }), REF).amount).toBe(100.38);
    expect(mapSlip(raw({ amount: '1000' }), REF).amount).toBe(1000);
  });

  it('reads a receiver paid by account and a sender paid by proxy', () => {
    const m = mapSlip(
      raw({
        sender: { displayName: 'ก', name: 'A', proxy: { type: 'MSISDN', value: 'xxx-xxx-1234' }, account: '' },
        receiver: { displayName: 'ข', name: 'B', proxy: '', account: { type: 'BANKAC', value: 'xxx-x-x3109-x' } },
      }),
      REF,
    );
    expect(m.senderBankAccountNumber).toBe('');
    expect(m.receiverBankAccountNumber).toBe('xxx-x-x3109-x');
    expect(m.receiverPromptpay).toBe('');
    expect(m.receiverProxyType).toBe('');
  });

  it('refuses an answer whose sender or receiver is missing or names nobody', () => {
    expect(() => mapSlip(raw({ sender: '' }), REF)).toThrow(/sender is missing/);
    expect(() => mapSlip(raw({ receiver: '' }), REF)).toThrow(/receiver is missing/);
    expect(() => mapSlip(raw({ receiver: { displayName: ' ', name: '', proxy: '', account: '' } }), REF)).toThrow(/receiver is missing/);
    // A party known only by its masked account is still a party.
    expect(mapSlip(raw({ sender: { proxy: '', account: { type: 'BANKAC', value: 'xxx-x-x1234-x' } } }), REF).senderBankAccountNumber).toBe('xxx-x-x1234-x');
  });

  it('keeps unknown bank codes as they are', () => {
    const m = mapSlip(raw({ receivingBank: '999' }), REF);
    expect([m.receiverBank, m.receiverBankCode]).toEqual(['999', '999']);
  });

  it.each([
    ['a non-numeric amount', { amount: 'abc' }],
    ['an empty amount', { amount: '' }],
    ['a malformed date', { transDate: '2025-10-05' }],
    ['an impossible date', { transDate: '20250230' }],
    ['a malformed time', { transTime: '25:61' }],
    ['a missing transRef', { transRef: '' }],
    ['a zero amount', { amount: '0.00' }],
    ['a negative amount', { amount: -5 }],
    ['an amount with three decimals', { amount: '100.385' }],
    ['an amount in hexadecimal', { amount: '0x10' }],
    ['an amount in exponent form', { amount: '1e3' }],
    ['an infinite amount', { amount: Number.POSITIVE_INFINITY }],
    ['a time with 60 seconds', { transTime: '10:00:60' }],
  ])('refuses %s', (_n, over) => {
    expect(() => mapSlip(raw(over), REF)).toThrow(SlipMappingError);
  });
});

describe('bangkokTime', () => {
  it('crosses midnight UTC correctly', () => {
    expect(bangkokTime('20260101', '03:00:00')).toEqual({ dateTime: '2026-01-01T03:00:00+07:00', timestamp: Date.parse('2025-12-31T20:00:00Z') / 1000 });
  });
});

describe('mapSlip on odd bank payloads', () => {
  it('treats a null proxy or account like an absent one', () => {
    const data = raw({ receiver: { displayName: 'ร้าน', name: 'SHOP', proxy: null, account: null } as never });
    expect(mapSlip(data, REF)).toMatchObject({ receiverPromptpay: '', receiverProxyType: '', receiverBankAccountNumber: '' });
  });

  it('refuses dates that do not exist instead of rolling them over', () => {
    for (const transDate of ['20251315', '20250015', '20250230']) {
      expect(() => bangkokTime(transDate, '10:00:00'), transDate).toThrow(SlipMappingError);
    }
    expect(bangkokTime('20240229', '10:00:00').dateTime).toBe('2024-02-29T10:00:00+07:00');
  });

  it('answers names as text: digits become a string, other shapes are a broken answer', () => {
    expect(mapSlip(raw({ sender: { displayName: 12345, name: null } as never }), REF).senderName).toBe('12345');
    expect(() => mapSlip(raw({ sender: { displayName: { th: 'x' } } as never }), REF)).toThrow(/sender.displayName is not text/);
  });
});
