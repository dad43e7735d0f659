// The answer check compares the bank's reference and bank code with the QR's
// as plain ASCII, and an accepted slip names itself by the QR's values: the
// bank's own spelling stays only in rawData.
import { describe, expect, it } from 'vitest';
import { acceptBankAnswer } from '../../../src/domain/verify/bank-answer.js';
import { rawSlipData, SLIP_REF } from '../slip-fixtures.js';

const ASKED = SLIP_REF;

const answer = rawSlipData;

describe('acceptBankAnswer', () => {
  // Each of these matched before: trim() strips NBSP and BOM, toUpperCase()
  // folds ſ, ß and ı into ASCII letters.
  it.each([
    ['spaces around the reference', { transRef: ` ${ASKED.transRef} ` }],
    ['a no-break space after the reference', { transRef: `${ASKED.transRef}\u00a0` }],
    ['a byte-order mark before the reference', { transRef: `\ufeff${ASKED.transRef}` }],
    ['ſ (long s) that upper-cases to S', { transRef: '015278121420BTſ05718' }, { transRef: '015278121420BTS05718' }],
    ['ß that upper-cases to SS', { transRef: '0152781214ß' }, { transRef: '0152781214SS' }],
    ['ı (dotless i) that upper-cases to I', { transRef: '0152781214ıBTF' }, { transRef: '0152781214IBTF' }],
    ['a fullwidth digit', { transRef: ASKED.transRef.replace(/^0/, '０') }],
    ['spaces around the bank code', { sendingBank: ' 004 ' }],
    ['a no-break space in the bank code', { sendingBank: '004\u00a0' }],
    ['a bank code of four digits', { sendingBank: '0004' }],
    ['a bank code in words', { sendingBank: 'KBANK' }],
    ['an Arabic-Indic digit in the bank code', { sendingBank: '00٤' }],
  ] as [string, Record<string, unknown>, Partial<typeof ASKED>?][])('refuses %s as an answer about another slip', (_what, over, asked = {}) => {
    const verdict = acceptBankAnswer({ ...ASKED, ...asked }, answer(over));
    expect(verdict).toMatchObject({ ok: false, kind: 'upstream_mismatch', message: 'verification service error: the answer is about a different slip' });
  });

  it('accepts the reference in another case and names the slip by the QR\u2019s values; rawData keeps the bank\u2019s text', () => {
    const raw = answer({ transRef: ASKED.transRef.toLowerCase() });
    const verdict = acceptBankAnswer(ASKED, raw);
    if (!verdict.ok) throw new Error(verdict.message);
    expect(verdict.slip).toMatchObject({ transactionId: ASKED.transRef, senderBankCode: '004', senderBank: 'KBANK' });
    expect(verdict.slip.rawData).toBe(raw);
    expect(verdict.slip.rawData.transRef).toBe(ASKED.transRef.toLowerCase());
  });

  // A bank that drops the leading zeros names the same 3-digit code; what is recorded is the QR's form.
  it.each([['4'], ['04'], [4]])('accepts the bank code %j for the QR\u2019s "004" and answers "004" / KBANK', (code) => {
    const raw = answer({ sendingBank: code });
    const verdict = acceptBankAnswer(ASKED, raw);
    if (!verdict.ok) throw new Error(verdict.message);
    expect(verdict.slip).toMatchObject({ transactionId: ASKED.transRef, senderBankCode: '004', senderBank: 'KBANK' });
    expect(verdict.slip.rawData.sendingBank).toBe(code);
  });

  it('still tells a missing reference (broken data) from another slip', () => {
    expect(acceptBankAnswer(ASKED, answer({ transRef: '' }))).toMatchObject({ ok: false, kind: 'upstream_error' });
    expect(acceptBankAnswer(ASKED, answer({ transRef: undefined }))).toMatchObject({ ok: false, kind: 'upstream_error' });
  });
});
