// The opt-in merchant checks as pure functions: masks, Thai/English names,
// satang amounts, slip age, and the request validation in front of them.
import { describe, expect, it } from 'vitest';
import { parseCheckRequest } from '../../../src/domain/checks/request.js';
import { accountMatches, evaluateChecks, nameMatches, nameTokens } from '../../../src/domain/checks/run.js';
import { checkVerifyBody } from '../../../src/domain/verify/request.js';
import { verifiedSlip } from '../slip-fixtures.js';

describe('accountMatches: partial match that respects the bank mask', () => {
  it.each([
    ['xxx-x-x3109-x', '1233109'],
    ['xxx-x-x3109-x', '3109'],
    ['xxx-x-x3109-x', '123-3-13109-0'],
    ['xxx-x-x3109-x', '1231310 90'],
    ['x-xxxx-xxxx1-23-4', '3-1012-34561-23-4'],
    ['xxx-xxx-5678', '081-234-5678'],
    ['1233109', '3109'],
    ['123-3-13109-0', '1233131090'],
  ])('%s matches %s', (masked, expected) => {
    expect(accountMatches(masked, expected)).toBe(true);
  });

  it.each([
    ['xxx-x-x3109-x', '1234'],
    ['xxx-x-x3109-x', '1233108'],
    ['xxx-x-x3109-x', '123-3-13190-0'],
    // 4 digits that fit only on the masked part must not count as a match.
    ['xxx-x-x3109-x', '9999'],
    ['xxx-x-x3109-x', '31090000'],
    ['xxx-x-xxxxx-x', '1234'],
    ['', '1234'],
    ['xxx-xxx-5678', '081-234-5679'],
  ])('%s does not match %s', (masked, expected) => {
    expect(accountMatches(masked, expected)).toBe(false);
  });
});

describe('nameMatches: titles, legal forms, spacing and truncation do not matter', () => {
  it.each([
    ['นาย สมชาย ใ', 'สมชาย ใจดี'],
    ['นาย สมชาย ใ', 'นายสมชาย ใจดี'],
    ['นาย สมชาย ใ', 'สมชาย'],
    ['นาย สมชาย ใxxx', 'สมชาย  ใจดี'],
    ['นางสาว สุดา รักไทย', 'น.ส. สุดา รักไทย'],
    ['นางสาว สุดา รักไทย', 'สุดารักไทย'],
    ['นาง มาลี ศรีสุข', 'คุณ มาลี ศรีสุข'],
    ['MR. SOMCHAI J', 'Somchai Jaidee'],
    ['MR. SOMCHAI J', 'somchai'],
    ['MISS SUDA RAKTHAI', 'Ms. Suda Rakthai'],
    ['MRS. MALEE SRISUK', 'malee   srisuk'],
    ['บจก. ร้านกาแฟ ดีดี', 'บริษัท ร้านกาแฟ ดีดี จำกัด'],
    ['บจก. ร้านกาแฟ ดีดี', 'ร้านกาแฟ ดีดี'],
    ['DEEDEE COFFEE CO., LTD.', 'DeeDee Coffee Company Limited'],
    ['DEEDEE COFFEE CO., LTD.', 'deedee coffee'],
    // นางนวล is a first name, not นาง + นวล: both readings are tried.
    ['นางสาว นางนวล ส', 'นางนวล สายสุข'],
  ])('%s matches %s', (actual, expected) => {
    expect(nameMatches(actual, expected)).toBe(true);
  });

  it.each([
    ['นาย สมชาย ใ', 'สมศักดิ์ ใจดี'],
    ['นาย สมชาย ใ', 'สม'],
    ['นาย สมชาย ใ', 'สมชาย รักไทย'],
    ['MR. SOMCHAI J', 'Somsak Jaidee'],
    ['MR. SOMCHAI J', 'somchai kaidee'],
    ['บจก. ร้านกาแฟ ดีดี', 'ร้านกาแฟ ดีมาก'],
    ['DEEDEE COFFEE CO., LTD.', 'deedee tea'],
    ['MR. SOMCHAI J', 'สมชาย'],
    ['', 'สมชาย'],
  ])('%s does not match %s', (actual, expected) => {
    expect(nameMatches(actual, expected)).toBe(false);
  });

  it('reduces a name to comparable tokens', () => {
    expect(nameTokens('  นางสาว   สุดา  รักไทย ')).toEqual(['สุดา', 'รักไทย']);
    expect(nameTokens('MR. SOMCHAI J')).toEqual(['somchai', 'j']);
    expect(nameTokens('บริษัท ดีดี จำกัด (มหาชน)')).toEqual(['ดีดี']);
    expect(nameTokens('นาย')).toEqual([]);
    expect(nameTokens('Co., Ltd.')).toEqual([]);
  });
});

const slip = verifiedSlip({ amount: 250.5, transactionId: 'T1', receiverName: 'บจก. ร้านกาแฟ ดีดี', receiverNameEN: 'DEEDEE COFFEE CO., LTD.' });
const at = (iso: string) => ({ now: new Date(iso) });

describe('evaluateChecks', () => {
  it('reports only the checks asked for, hit and miss', () => {
    const hit = evaluateChecks({ amountSatang: 25050, receiverAccount: '1234', receiverName: 'DeeDee Coffee', maxAgeMinutes: 60 }, slip, at('2025-10-05T23:09:59+07:00'));
    expect(hit).toStrictEqual({
      amount: { passed: true, expected: 250.5, actual: 250.5 },
      receiverAccount: { passed: true, expected: '1234', actual: ['x-xxxx-xxxx1-23-4'] },
      receiverName: { passed: true, expected: 'DeeDee Coffee', actual: ['DEEDEE COFFEE CO., LTD.'] },
      maxAgeMinutes: { passed: true, maxAgeMinutes: 60, ageMinutes: 60 },
    });
    const miss = evaluateChecks({ amountSatang: 25000, receiverAccount: '9876', receiverName: 'ร้านชา', maxAgeMinutes: 59.5 }, slip, at('2025-10-05T23:09:59+07:00'));
    expect(miss).toStrictEqual({
      amount: { passed: false, expected: 250, actual: 250.5 },
      receiverAccount: { passed: false, expected: '9876', actual: ['x-xxxx-xxxx1-23-4'] },
      receiverName: { passed: false, expected: 'ร้านชา', actual: ['บจก. ร้านกาแฟ ดีดี', 'DEEDEE COFFEE CO., LTD.'] },
      maxAgeMinutes: { passed: false, maxAgeMinutes: 59.5, ageMinutes: 60 },
    });
  });

  it('compares amounts in whole satang, not floats', () => {
    const odd = { ...slip, amount: 0.3 };
    expect(evaluateChecks({ amountSatang: 30 }, odd, at('2025-10-06T00:00:00Z')).amount?.passed).toBe(true);
    expect(evaluateChecks({ amountSatang: 31 }, odd, at('2025-10-06T00:00:00Z')).amount?.passed).toBe(false);
  });

  it('duplicate: seen with the first time, unseen, and unknown (fails closed)', () => {
    const first = new Date('2025-10-05T15:10:00Z');
    expect(evaluateChecks({ duplicate: true }, slip, { now: new Date(), history: { count: 2, firstVerifiedAt: first } }).duplicate).toStrictEqual({
      passed: false,
      seen: true,
      count: 2,
      firstVerifiedAt: '2025-10-05T15:10:00.000Z',
    });
    expect(evaluateChecks({ duplicate: true }, slip, { now: new Date(), history: { count: 0, firstVerifiedAt: null } }).duplicate).toStrictEqual({
      passed: true,
      seen: false,
      count: 0,
      firstVerifiedAt: null,
    });
    expect(evaluateChecks({ duplicate: true }, slip, { now: new Date(), history: { error: 'db down' } }).duplicate).toStrictEqual({ passed: false, error: 'db down' });
    expect(evaluateChecks({ duplicate: false }, slip, { now: new Date() })).toStrictEqual({});
  });
});

describe('parseCheckRequest', () => {
  it('accepts every check and turns the amount into satang', () => {
    expect(parseCheckRequest({ duplicate: true, amount: 250.1, receiverAccount: '123-3-13109-0', receiverName: 'สมชาย', maxAgeMinutes: 1440 })).toStrictEqual({
      ok: true,
      checks: { duplicate: true, amountSatang: 25010, receiverAccount: '123-3-13109-0', receiverName: 'สมชาย', maxAgeMinutes: 1440 },
    });
    expect(parseCheckRequest({ amount: '0.07' })).toStrictEqual({ ok: true, checks: { amountSatang: 7 } });
    expect(parseCheckRequest({ amount: 1e7 })).toStrictEqual({ ok: true, checks: { amountSatang: 1e9 } });
    expect(parseCheckRequest({})).toStrictEqual({ ok: true, checks: {} });
  });

  it.each([
    [null, /must be a JSON object/],
    [[], /must be a JSON object/],
    ['duplicate', /must be a JSON object/],
    [{ duplicat: true }, /unknown check "duplicat"; known checks: duplicate, amount/],
    [{ duplicate: 'yes' }, /duplicate must be true or false/],
    [{ amount: 250.005 }, /at most 2 decimals/],
    [{ amount: -1 }, /positive amount/],
    [{ amount: '25o' }, /amount/],
    [{ amount: Number.MAX_VALUE }, /amount/],
    [{ receiverAccount: 1233109 }, /receiverAccount must be a string/],
    [{ receiverAccount: 'abc1234' }, /receiverAccount must be a string of digits/],
    [{ receiverAccount: '12-3' }, /at least 4 digits/],
    [{ receiverName: 42 }, /receiverName must be a string/],
    [{ receiverName: 'นาย' + ' '.repeat(3) }, /not only a title/],
    [{ receiverName: 'x'.repeat(201) }, /at most 200/],
    [{ maxAgeMinutes: '60' }, /maxAgeMinutes must be a number/],
    [{ maxAgeMinutes: 0 }, /above 0/],
  ])('refuses %j', (value, message) => {
    const r = parseCheckRequest(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('is wired into the body check: a bad check is a 400, no checks means none', () => {
    const body = (v: unknown) => checkVerifyBody('application/json', Buffer.from(JSON.stringify(v)));
    expect(body({ qrcode: 'q', checks: { nope: 1 } })).toStrictEqual({ ok: false, problem: 'invalid', message: expect.stringMatching(/unknown check "nope"/) });
    const plain = body({ qrcode: 'q' });
    expect(plain.ok && 'checks' in plain).toBe(false);
    expect(body({ qrcode: 'q', checks: { duplicate: true } })).toMatchObject({ ok: true, checks: { duplicate: true } });
  });
});
