// Opt-in merchant checks through a real running slipgate: the
// spec's response is untouched without `checks`, each check hits and misses,
// duplicates are per account, and checks never change charging or failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawSlipData } from '../../src/domain/types.js';
import { mapSlip } from '../../src/domain/verify/mapping.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import { parseSlipQr, slipReference, writtenReference } from '../../src/domain/verify/slip-qr.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';

/** The transaction the sandbox will report for a QR (same day, same answer). */
function transactionOf(qrcode: string): RawSlipData {
  const parsed = parseSlipQr(qrcode);
  if (!parsed.ok) throw new Error(parsed.reason);
  // The sandbox is asked with the QR's own spelling of the reference.
  return sandboxTransaction(parsed.slip.sendingBank, writtenReference(qrcode, parsed.slip));
}

/** A sandbox QR whose transaction satisfies `want`. */
function qrWhere(want: (t: RawSlipData) => boolean, amount = 100): string {
  for (;;) {
    const qr = sandboxQr({ amount });
    if (want(transactionOf(qr))) return qr;
  }
}

const byAccount = (t: RawSlipData) => typeof t.receiver === 'object' && typeof t.receiver.account === 'object';
/** The sandbox answers with the QR's own values, so they name the slip (its reference in upper case, the slip's identity). */
const mapped = (t: RawSlipData) => mapSlip(t, { transRef: slipReference(t.transRef), sendingBank: t.sendingBank });
const ageMs = (t: RawSlipData) => Date.now() - mapped(t).timestamp * 1000;

describe.each(testEngines())('verify with checks on %s', (engine) => {
  let app: TestApp;
  const upstream = counting(new SandboxUpstream());

  beforeAll(async () => {
    app = await startApp({ upstream, databaseUrl: `${await engine.databaseUrl()}`.replace(/^(postgres.*)$/, '$1?pool_max=4') });
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose?.();
  });

  const post = (apiKey: string, body: unknown) => app.post(body, { 'x-api-key': apiKey });
  const rawPost = async (apiKey: string, body: unknown) => {
    const res = await fetch(`${app.publicUrl}/api/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const balance = async (accountId: string) => {
    const a = await app.store.getAccount(accountId);
    return { credits: a!.credits, held: a!.held, usage: a!.usage };
  };

  it('without checks the body is byte for byte the spec response; with them only `checks` is appended', async () => {
    const { accountId, apiKey } = await app.account(5);
    const qrcode = sandboxQr({ bank: '014', amount: 250 });
    const plain = await rawPost(apiKey, { qrcode });
    expect(plain.status).toBe(200);
    const data = mapped(transactionOf(qrcode));
    expect(plain.text).toBe(JSON.stringify({ status: 'success', data, message: 'slip verified', qrcode }));

    const checked = await rawPost(apiKey, { qrcode, checks: { amount: 250 } });
    expect(checked.status).toBe(200);
    const checks = { amount: { passed: true, expected: 250, actual: 250 } };
    expect(checked.text).toBe(`${plain.text.slice(0, -1)},"checks":${JSON.stringify(checks)}}`);
    // Checks never change charging: two successes, two credits.
    expect(await balance(accountId)).toEqual({ credits: 3, held: 0, usage: 2 });
  });

  it('every check hits on a slip that is what the merchant expects', async () => {
    const { accountId, apiKey } = await app.account(1);
    const qrcode = qrWhere((t) => byAccount(t), 1234.56);
    const t = transactionOf(qrcode);
    const data = mapped(t);
    const visible = data.receiverBankAccountNumber.replace(/\D/g, '');
    const res = await post(apiKey, {
      qrcode,
      checks: {
        duplicate: true,
        amount: 1234.56,
        receiverAccount: `12-3-4${visible}-9`,
        receiverName: data.receiverNameEN.toLowerCase().replace(/co\., ltd\.|mr\. /, ''),
        maxAgeMinutes: 31 * 24 * 60,
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['status', 'data', 'message', 'qrcode', 'checks']);
    expect(res.body.status).toBe('success');
    expect(res.body.checks).toStrictEqual({
      duplicate: { passed: true, seen: false, count: 0, firstVerifiedAt: null },
      amount: { passed: true, expected: 1234.56, actual: 1234.56 },
      receiverAccount: { passed: true, expected: `12-3-4${visible}-9`, actual: [data.receiverBankAccountNumber] },
      receiverName: { passed: true, expected: expect.any(String), actual: [data.receiverNameEN] },
      maxAgeMinutes: { passed: true, maxAgeMinutes: 31 * 24 * 60, ageMinutes: expect.any(Number) },
    });
    expect(res.body.checks.maxAgeMinutes.ageMinutes).toBeGreaterThanOrEqual(Math.floor(ageMs(t) / 60_000) - 1);
    expect(await balance(accountId)).toEqual({ credits: 0, held: 0, usage: 1 });
  });

  it('every check misses on a slip that is not, and the verification still succeeds and is charged', async () => {
    const { accountId, apiKey } = await app.account(1);
    const qrcode = qrWhere((t) => byAccount(t) && ageMs(t) > 10 * 60_000, 249.99);
    const data = mapped(transactionOf(qrcode));
    const visible = data.receiverBankAccountNumber.replace(/\D/g, '');
    const wrongAccount = visible.replace(/^./, (d) => String((Number(d) + 1) % 10));
    const res = await post(apiKey, {
      qrcode,
      checks: { amount: 250, receiverAccount: wrongAccount, receiverName: 'ร้านชาไข่มุก', maxAgeMinutes: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data).toStrictEqual(JSON.parse(JSON.stringify(data)));
    expect(res.body.checks).toStrictEqual({
      amount: { passed: false, expected: 250, actual: 249.99 },
      receiverAccount: { passed: false, expected: wrongAccount, actual: [data.receiverBankAccountNumber] },
      receiverName: { passed: false, expected: 'ร้านชาไข่มุก', actual: [data.receiverName, data.receiverNameEN] },
      maxAgeMinutes: { passed: false, maxAgeMinutes: 5, ageMinutes: expect.any(Number) },
    });
    expect(res.body.checks.maxAgeMinutes.ageMinutes).toBeGreaterThan(5);
    expect(await balance(accountId)).toEqual({ credits: 0, held: 0, usage: 1 });
  });

  it('matches a Thai receiver name after titles and legal forms', async () => {
    const { apiKey } = await app.account(1);
    const qrcode = sandboxQr();
    const data = mapped(transactionOf(qrcode));
    // Sandbox receivers: "บจก. ร้านกาแฟ ดีดี" or "นาย ประยุทธ์ ขายดี".
    const expected = data.receiverName.startsWith('บจก.') ? 'บริษัท ร้านกาแฟ ดีดี จำกัด' : 'นายประยุทธ์ ขายดี';
    const res = await post(apiKey, { qrcode, checks: { receiverName: expected } });
    expect(res.body.checks).toStrictEqual({ receiverName: { passed: true, expected, actual: [data.receiverName] } });
  });

  it('duplicate counts only the caller account’s earlier verifications of the slip', async () => {
    const a = await app.account(10);
    const b = await app.account(10);
    const qrcode = sandboxQr();
    const other = sandboxQr();

    // A first verification without checks still counts as "used" later.
    const first = await post(a.apiKey, { qrcode });
    expect(first.body.status).toBe('success');
    await post(a.apiKey, { qrcode: other, checks: { duplicate: true } });
    const [firstRecord] = (await app.store.listVerifyTransactions({ accountId: a.accountId, transactionId: first.body.data.transactionId, limit: 5 })).items;

    const again = await post(a.apiKey, { qrcode, checks: { duplicate: true } });
    expect(again.body.checks).toStrictEqual({ duplicate: { passed: false, seen: true, count: 1, firstVerifiedAt: firstRecord!.createdAt.toISOString() } });

    // Another merchant's account never sees A's verifications.
    const elsewhere = await post(b.apiKey, { qrcode, checks: { duplicate: true } });
    expect(elsewhere.body.checks).toStrictEqual({ duplicate: { passed: true, seen: false, count: 0, firstVerifiedAt: null } });

    const third = await post(a.apiKey, { qrcode, checks: { duplicate: true } });
    expect(third.body.checks.duplicate).toMatchObject({ seen: true, count: 2, firstVerifiedAt: firstRecord!.createdAt.toISOString() });

    // Still no idempotency (docs/contract.md#charging-and-records): every one of them was charged.
    expect(await balance(a.accountId)).toEqual({ credits: 6, held: 0, usage: 4 });
    expect(await balance(b.accountId)).toEqual({ credits: 9, held: 0, usage: 1 });
  });

  concurrencyCase(engine)('of simultaneous verifications of one slip, at most one reports it unseen', async () => {
    const { apiKey } = await app.account(6);
    const qrcode = sandboxQr();
    const results = await Promise.all(Array.from({ length: 6 }, () => post(apiKey, { qrcode, checks: { duplicate: true } })));
    expect(results.map((r) => r.body.status)).toEqual(Array(6).fill('success'));
    const unseen = results.filter((r) => r.body.checks.duplicate.seen === false);
    expect(unseen.length).toBeLessThanOrEqual(1);
  });

  it.each([
    [{ duplicate: true, expiry: 5 }, /unknown check "expiry"; known checks: duplicate, amount, receiverAccount, receiverName, maxAgeMinutes/],
    [{ amount: '250 baht' }, /checks\.amount must be/],
    [{ duplicate: 1 }, /checks\.duplicate must be true or false/],
    [[{ duplicate: true }], /checks must be a JSON object/],
    [null, /checks must be a JSON object/],
  ])('bad checks %j: 400, nothing charged, nothing stored, no network call', async (checks, message) => {
    const { accountId, apiKey } = await app.account(1);
    const calls = upstream.calls;
    const res = await post(apiKey, { qrcode: sandboxQr(), checks });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ status: 'error', message: expect.stringMatching(message) });
    expect(upstream.calls).toBe(calls);
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
    expect((await app.store.listRequestErrors({ accountId, limit: 5 })).items).toEqual([]);
  });

  it('failure responses keep the spec shape: no `checks` on errors', async () => {
    const { accountId, apiKey } = await app.account(1);
    const checks = { duplicate: true, amount: 100 };
    const failed = await post(apiKey, { qrcode: sandboxQr({ outcome: 'not-found' }), checks });
    expect(failed.status).toBe(200);
    expect(failed.body).toStrictEqual({ status: 'error', message: expect.stringMatching(/slip not found/) });
    const badQr = await post(apiKey, { qrcode: 'not a slip', checks });
    expect(badQr.body).toStrictEqual({ status: 'error', message: expect.stringMatching(/invalid slip QR code/) });
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });

    const broke = await app.account(0);
    const refused = await post(broke.apiKey, { qrcode: sandboxQr(), checks });
    expect(refused).toMatchObject({ status: 400, body: { status: 'error', code: 1023, message: 'insufficient fund' } });
    expect(Object.keys(refused.body)).toEqual(['status', 'code', 'message']);
  });
});
