// Personal data retention and erasure, the same cases on every engine, with
// an injected clock (the pass's `now` and the records' times are given, not
// read from the wall). What is left of each record is read through the
// engine's own driver (test/helpers/raw-records.ts), not through slipgate.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/api-key.js';
import { duplicateHistory } from '../../src/domain/duplicate-history.js';
import type { Store } from '../../src/domain/ports/store.js';
import { reconcileAccount } from '../../src/domain/reconcile.js';
import { removePersonalData, retentionCutoff } from '../../src/domain/retention.js';
import type { VerifiedSlip, VerifyTransactionRecord } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { openRawRecords, type RawRecords } from '../helpers/raw-records.js';

const DAY = 86_400_000;
/** The injected clock: every pass below runs "now" at this instant. */
const NOW = new Date('2026-06-01T00:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const PERIOD_DAYS = 365;
const CUTOFF = retentionCutoff(NOW, PERIOD_DAYS);

/** Everything in a bank answer that names a person or an account. */
const PERSONAL = ['นาย สมชาย ใ', 'MR. SOMCHAI J', 'xxx-x-x1234-x', 'บจก. ดีดี', 'DEEDEE CO', 'xxx-x-x3109-x', 'x-xxxx-xxxx1-23-4', '0812345678'];

function slip(transactionId: string, amount: number): VerifiedSlip {
  return {
    amount,
    dateTime: '2025-01-01T10:00:00+07:00',
    timestamp: 1735700400,
    transactionId,
    senderBankAccountNumber: 'xxx-x-x1234-x',
    senderName: 'นาย สมชาย ใ',
    senderNameEN: 'MR. SOMCHAI J',
    senderBank: 'KBANK',
    senderBankCode: '004',
    receiverBankAccountNumber: 'xxx-x-x3109-x',
    receiverName: 'บจก. ดีดี',
    receiverNameEN: 'DEEDEE CO',
    receiverBank: 'SCB',
    receiverBankCode: '014',
    receiverPromptpay: 'x-xxxx-xxxx1-23-4',
    receiverProxyType: 'NATID',
    rawData: { amount: String(amount), transRef: transactionId, sender: { displayName: 'นาย สมชาย ใ', proxy: { type: 'MSISDN', value: '0812345678' } } },
  };
}

describe.each(testEngines())('personal data retention and erasure: %s', (engine) => {
  let url: string;
  let store: Store;
  let raw: RawRecords;

  beforeEach(async () => {
    url = await engine.databaseUrl();
    store = await openStore(url);
    raw = await openRawRecords(url);
  });
  afterEach(async () => {
    await raw?.close();
    await store?.close();
  });
  afterAll(() => engine.dispose());

  async function account(credits: number): Promise<string> {
    const acc = await store.createAccount({ id: newId('acc'), name: 'ร้านกาแฟ ดีดี', createdAt: ago(500 * DAY) });
    await store.applyLedgerEntry({ id: newId('led'), accountId: acc.id, kind: 'initial', delta: credits, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: ago(500 * DAY) });
    return acc.id;
  }

  /** A charged verification recorded at `createdAt`, through the store's own hold and settle. */
  async function verified(accountId: string, createdAt: Date, over: Partial<VerifyTransactionRecord> = {}): Promise<VerifyTransactionRecord> {
    const id = newId('req');
    const transactionId = over.transactionId ?? `TX${id.slice(-12).toUpperCase()}`;
    await store.holdCredit({ id, accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
    const record: VerifyTransactionRecord = {
      id,
      accountId,
      keyId: 'key_test',
      requestId: id,
      qrcode: slipQr('004', transactionId),
      transactionId,
      amount: 250.5,
      sendingBank: '004',
      receivingBank: '014',
      upstream: 'kbank-a',
      latencyMs: 42,
      response: slip(transactionId, 250.5),
      createdAt,
      ...over,
    };
    await store.settleHold(record);
    return record;
  }

  async function failed(accountId: string | null, createdAt: Date): Promise<string> {
    const id = newId('req');
    await store.insertRequestError({ id, accountId, keyId: null, requestId: id, qrcode: slipQr('004', 'TXFAILED1'), transactionId: 'TXFAILED1', sendingBank: '004', kind: 'slip_not_found', message: 'slip not found', upstream: 'kbank-a', latencyMs: 9, createdAt });
    return id;
  }

  /** Two accounts with records on both sides of the cutoff (CUTOFF itself is inside the period). */
  async function seed() {
    const a = await account(10);
    const b = await account(10);
    const old = [
      await verified(a, ago(400 * DAY)),
      await verified(a, ago(366 * DAY), { qrcode: 'NAME:SOMCHAI JAIDEE;ACC:1234' }),
      await verified(b, new Date(CUTOFF.getTime() - 1)),
    ];
    const recent = [await verified(a, CUTOFF), await verified(a, ago(DAY)), await verified(b, ago(10 * DAY))];
    const oldFailures = [await failed(a, ago(400 * DAY)), await failed(null, ago(366 * DAY))];
    const recentFailures = [await failed(a, ago(DAY)), await failed(b, ago(10 * DAY)), await failed(null, CUTOFF)];
    await store.insertAdminEvent({ id: newId('evt'), actor: 'cli:test', action: 'topUpCredits', targetId: a, reason: 'old', details: { name: 'ร้านกาแฟ ดีดี' }, createdAt: ago(400 * DAY) });
    return { a, b, old, recent, oldFailures, recentFailures };
  }

  it('redacts exactly the records older than the period, deletes exactly the old failures, and touches nothing else', async () => {
    const s = await seed();
    const before = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    const books = await raw.untouchable();

    // Batches of 2: the pass must go on until nothing is left, not stop after one.
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, batchSize: 2 })).toEqual({ redacted: 3, deleted: 2, dryRun: false });

    const after = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    expect(after.size).toBe(6);
    for (const record of s.old) {
      const stored = after.get(record.id)!;
      const was = before.get(record.id)!;
      expect(stored.redactedAt?.toISOString()).toBe(NOW.toISOString());
      // What the books, usage, duplicate detection and disputes need stays, exactly.
      const { qrcode: _q, response: _r, redactedAt: _d, ...footprint } = stored;
      const { qrcode: _wq, response: _wr, redactedAt: _wd, ...wasFootprint } = was;
      expect(footprint).toEqual(wasFootprint);
      expect(stored.response).toMatchObject({ amount: 250.5, transactionId: record.transactionId, dateTime: record.response.dateTime, senderBankCode: '004', receiverBankCode: '014', rawData: {} });
      // What identifies people is gone, wherever it was (names, accounts, proxies, rawData).
      const text = JSON.stringify(stored);
      for (const personal of PERSONAL) expect(text).not.toContain(personal);
    }
    // The slip QR names only the bank and the reference: kept. The other QR text carried a name: gone.
    expect(after.get(s.old[0]!.id)!.qrcode).toBe(s.old[0]!.qrcode);
    expect(after.get(s.old[1]!.id)!.qrcode).toBe('');
    for (const record of s.recent) expect(after.get(record.id)).toEqual(before.get(record.id));

    expect(await raw.requestErrorIds()).toEqual([...s.recentFailures].sort());
    expect(await raw.untouchable()).toBe(books);

    // Through the store: the redaction shows, the books reconcile, the old slip is still a duplicate.
    const listed = await store.listVerifyTransactions({ accountId: s.a, limit: 10 });
    expect(listed.items.filter((r) => r.redactedAt).map((r) => r.id).sort()).toEqual([s.old[0]!.id, s.old[1]!.id].sort());
    for (const id of [s.a, s.b]) expect((await reconcileAccount(store, id)).problems).toEqual([]);
    expect(await reconcileAccount(store, s.a)).toMatchObject({ usage: 4, verifyTransactions: 4, credits: 6, ledgerTotal: 10 });
    const oldest = s.old[0]!;
    expect(await duplicateHistory(store, { accountId: s.a, transactionId: oldest.transactionId, sendingBank: '004', excludeId: 'req_now' })).toEqual({
      count: 1,
      firstVerifiedAt: oldest.createdAt,
    });

    // A second pass finds nothing more.
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: new Date(NOW.getTime() + 1000) })).toEqual({ redacted: 0, deleted: 0, dryRun: false });
    expect((await raw.verifyTransactions()).find((r) => r.id === oldest.id)!.redactedAt?.toISOString()).toBe(NOW.toISOString());
  });

  it('a dry run reports the counts and changes nothing', async () => {
    const s = await seed();
    const records = JSON.stringify(await raw.verifyTransactions());
    const failures = await raw.requestErrorIds();
    const books = await raw.untouchable();
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, dryRun: true })).toEqual({ redacted: 3, deleted: 2, dryRun: true });
    expect(await removePersonalData(store, { accountId: s.b }, { now: NOW, dryRun: true })).toEqual({ redacted: 2, deleted: 1, dryRun: true });
    expect(JSON.stringify(await raw.verifyTransactions())).toBe(records);
    expect(await raw.requestErrorIds()).toEqual(failures);
    expect(await raw.untouchable()).toBe(books);
  });

  it("erasure redacts every record of one account whatever its age, deletes its failures, and leaves the others' alone", async () => {
    const s = await seed();
    const before = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    const books = await raw.untouchable();
    expect(await removePersonalData(store, { accountId: s.a }, { now: NOW, batchSize: 3 })).toEqual({ redacted: 4, deleted: 2, dryRun: false });

    for (const r of await raw.verifyTransactions()) {
      if (r.accountId === s.a) {
        expect(r.redactedAt?.toISOString()).toBe(NOW.toISOString());
        for (const personal of PERSONAL) expect(JSON.stringify(r)).not.toContain(personal);
        expect(r.amount).toBe(250.5);
      } else {
        expect(r).toEqual(before.get(r.id));
      }
    }
    const bFailure = s.recentFailures[1]!;
    const noAccount = [s.oldFailures[1]!, s.recentFailures[2]!];
    expect(await raw.requestErrorIds()).toEqual([bFailure, ...noAccount].sort());
    expect(await raw.untouchable()).toBe(books);
    for (const id of [s.a, s.b]) expect((await reconcileAccount(store, id)).problems).toEqual([]);
  });

  it('names the live lease with the smallest id as the one to run retention', async () => {
    expect(await store.firstLiveLease(new Date())).toBeNull();
    // Ids of one millisecond tie on time and order by their random part: every instance still agrees.
    const [first, second] = [newId('ins'), newId('ins')].sort() as [string, string];
    await store.startLease(second, 60_000, new Date());
    await store.startLease(first, 60_000, new Date());
    expect(await store.firstLiveLease(new Date())).toBe(first);
    await raw.expireLease(first);
    expect(await store.firstLiveLease(new Date())).toBe(second);
    await store.endLease(second);
    expect(await store.firstLiveLease(new Date())).toBeNull();
  });
});
