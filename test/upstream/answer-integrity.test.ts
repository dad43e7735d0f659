// A bank answer is accepted only when it is about the slip the QR names and
// complete enough to answer truthfully. The fake banks are real HTTP servers
// speaking the KBank and SCB protocols, told to answer about another slip or
// with broken data, as a misrouted proxy or a faulty bank would.
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RawSlipData } from '../../src/domain/types.js';
import { createLogger } from '../../src/log/log.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { parseSlipQr, writtenReference } from '../../src/domain/verify/slip-qr.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runDoctor } from '../helpers/doctor.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb } from '../fakes/scb-server.js';
import type { FakeBank } from '../fakes/fake-bank.js';

type Rewrite = (tx: RawSlipData) => Record<string, unknown>;

const TAMPERED: [string, 'upstream_mismatch' | 'upstream_error', Rewrite][] = [
  ['another transaction reference', 'upstream_mismatch', (tx) => ({ ...tx, transRef: `${tx.transRef.slice(0, -4)}9999` })],
  ['another sending bank', 'upstream_mismatch', (tx) => ({ ...tx, sendingBank: tx.sendingBank === '014' ? '004' : '014' })],
  // References are compared as ASCII letters and digits only: whatever trim() or toUpperCase() would have to clean up first is another slip.
  ['spaces around the reference', 'upstream_mismatch', (tx) => ({ ...tx, transRef: ` ${tx.transRef} ` })],
  ['a no-break space after the reference', 'upstream_mismatch', (tx) => ({ ...tx, transRef: `${tx.transRef}\u00a0` })],
  ['a byte-order mark before the reference', 'upstream_mismatch', (tx) => ({ ...tx, transRef: `\ufeff${tx.transRef}` })],
  ['a long s (\u017f) where the reference has an S', 'upstream_mismatch', (tx) => ({ ...tx, transRef: tx.transRef.replace('S', '\u017f') })],
  ['a bank code with a space', 'upstream_mismatch', (tx) => ({ ...tx, sendingBank: ` ${tx.sendingBank}` })],
  ['no transaction reference', 'upstream_error', ({ transRef: _t, ...tx }) => tx],
  ['a negative amount', 'upstream_error', (tx) => ({ ...tx, amount: '-250.00' })],
  ['an amount with three decimals', 'upstream_error', (tx) => ({ ...tx, amount: '250.005' })],
  ['a date that does not exist', 'upstream_error', (tx) => ({ ...tx, transDate: '20250231' })],
  ['no receiver', 'upstream_error', (tx) => ({ ...tx, receiver: '' })],
];

/** A sandbox QR whose reference has an S (for the long-s case; harmless for the others). */
function qrWithS(opts: Parameters<typeof sandboxQr>[0]): string {
  for (;;) {
    const qrcode = sandboxQr(opts);
    const parsed = parseSlipQr(qrcode);
    if (parsed.ok && parsed.slip.transRef.includes('S')) return qrcode;
  }
}

const providers = [
  ['KBank', startFakeKbank],
  ['SCB', startFakeScb],
] as const;

describe.each(providers)('answers of a fake %s about the wrong slip or with broken data', (_name, startBank) => {
  let bank: FakeBank & { config(name?: string): never };
  let app: TestApp;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    bank = (await startBank()) as never;
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logs.push(JSON.parse(chunk.toString())), done()) });
    const logger = createLogger('warn', sink);
    // Every case here is a failure of the one domain: keep its breaker out of the way (tested below).
    const upstream = buildUpstream([bank.config('bank-1')], { sandbox: () => new SandboxUpstream(), logger, breakerThreshold: 1000 });
    app = await startApp({ upstream, logger });
  });
  afterEach(() => bank.setBehavior({ rewrite: null }));
  afterAll(async () => {
    await app?.stop();
    await bank?.close();
  });

  it.each(TAMPERED)('refuses an answer with %s: HTTP 200 error, nothing charged, recorded', async (_what, kind, rewrite) => {
    bank.setBehavior({ rewrite });
    const { accountId, apiKey } = await app.account(3);
    const qrcode = qrWithS({ bank: '004', amount: 250 });
    const res = await app.verify(apiKey, qrcode);

    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ status: 'error', message: expect.stringMatching(/^verification service error: /) });
    const account = (await app.store.getAccount(accountId))!;
    expect({ credits: account.credits, held: account.held, usage: account.usage }).toEqual({ credits: 3, held: 0, usage: 0 });
    expect((await app.store.listVerifyTransactions({ accountId, limit: 5 })).items).toEqual([]);
    const slip = parseSlipQr(qrcode);
    if (!slip.ok) throw new Error('sandbox QR must parse');
    expect((await app.store.listRequestErrors({ accountId, limit: 5 })).items).toMatchObject([
      { kind, upstream: 'bank-1', transactionId: slip.slip.transRef, sendingBank: '004', message: res.body.message },
    ]);
  });

  it('logs a wrong-slip answer at error level with the domain and both references, never the key', async () => {
    const other = 'WRONGREF0000000001';
    bank.setBehavior({ rewrite: (tx) => ({ ...tx, transRef: other }) });
    const { apiKey } = await app.account(1);
    const qrcode = sandboxQr();
    const slip = parseSlipQr(qrcode);
    if (!slip.ok) throw new Error('sandbox QR must parse');
    logs.length = 0;
    await app.verify(apiKey, qrcode);

    const line = logs.find((l) => l.msg === 'bank answered about a different slip; answer refused');
    expect(line).toMatchObject({
      level: 50,
      upstream: 'bank-1',
      // Asked as the QR writes it (the bank knows its slip by its own spelling).
      asked: { transRef: writtenReference(qrcode, slip.slip), sendingBank: slip.slip.sendingBank },
      answered: { transRef: other, sendingBank: slip.slip.sendingBank },
    });
    expect(JSON.stringify(logs)).not.toContain(apiKey);
  });

  it('accepts the reference in another case and the bank code without its leading zeros, and records and answers the QR\u2019s own values', async () => {
    bank.setBehavior({ rewrite: (tx) => ({ ...tx, transRef: tx.transRef.toLowerCase(), sendingBank: '4' }) });
    const { accountId, apiKey } = await app.account(2);
    const qrcode = sandboxQr({ bank: '004', amount: 99.5 });
    const slip = parseSlipQr(qrcode);
    if (!slip.ok) throw new Error('sandbox QR must parse');
    const { transRef } = slip.slip;
    expect(transRef.toLowerCase()).not.toBe(transRef);

    const res = await app.verify(apiKey, qrcode);
    expect(res.body).toMatchObject({
      status: 'success',
      data: { amount: 99.5, transactionId: transRef, senderBankCode: '004', senderBank: 'KBANK' },
    });
    // rawData is the bank's answer as it came, its own spelling included.
    expect(res.body.data.rawData).toMatchObject({ transRef: transRef.toLowerCase(), sendingBank: '4' });
    expect((await app.store.getAccount(accountId))!.usage).toBe(1);

    // The stored record, as the driver sees it: the QR's values in the columns and the response; the bank's only in rawData.
    const stored = sqliteRows<{ transaction_id: string; sending_bank: string; response: string }>(
      app.databaseUrl.slice('sqlite:'.length),
      'SELECT transaction_id, sending_bank, response FROM verify_transactions WHERE account_id = ?',
      accountId,
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ transaction_id: transRef, sending_bank: '004' });
    const response = JSON.parse(stored[0]!.response) as Record<string, any>;
    expect(response).toMatchObject({ transactionId: transRef, senderBankCode: '004', senderBank: 'KBANK' });
    expect(response.rawData).toStrictEqual(res.body.data.rawData);

    // The exact-match duplicate lookup finds it when the same slip comes again.
    const again = await app.post({ qrcode, checks: { duplicate: true } }, { 'x-api-key': apiKey });
    expect(again.body).toMatchObject({ status: 'success', checks: { duplicate: { passed: false, seen: true, count: 1 } } });
  });

  it('leaves the books reconciled after every refusal', async () => {
    const report = await runDoctor(app.databaseUrl);
    expect(report.code, JSON.stringify(report.discrepancies)).toBe(0);
    expect(report.openHolds).toBe(0);
  });
});

describe('a domain that keeps answering about the wrong slip', () => {
  let liar: FakeBank & { config(name?: string): never };
  let honest: FakeBank & { config(name?: string): never };
  afterAll(async () => {
    await liar?.close();
    await honest?.close();
  });

  it('has its breaker opened after five in a row, and the pool sends the next slips to the other domain', async () => {
    liar = (await startFakeKbank({ behavior: { rewrite: (tx) => ({ ...tx, transRef: 'SOMEONEELSE0000001' }) } })) as never;
    honest = (await startFakeScb()) as never;
    // Always the first eligible domain: the liar while its breaker lets it.
    const upstream = buildUpstream([liar.config('liar'), honest.config('honest')], { sandbox: () => new SandboxUpstream(), random: () => 0 });
    const app = await startApp({ upstream });
    try {
      const { accountId, apiKey } = await app.account(10);
      for (let i = 0; i < 5; i++) {
        expect((await app.verify(apiKey, sandboxQr())).body).toMatchObject({ status: 'error' });
      }
      expect(upstream.health()[0]).toMatchObject({ name: 'liar', breaker: 'open', failuresByKind: { upstream_mismatch: 5 } });
      const next = await app.verify(apiKey, sandboxQr());
      expect(next.body).toMatchObject({ status: 'success' });
      expect(honest.calls.verify).toBe(1);
      expect(liar.calls.verify).toBe(5);
      expect((await app.store.getAccount(accountId))!).toMatchObject({ credits: 9, usage: 1, held: 0 });
    } finally {
      await app.stop();
    }
  });
});
