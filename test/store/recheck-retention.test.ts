// Retention and erasure of re-checks, the same cases on every engine, with
// an injected clock. A finished re-check keeps the slip's QR text and, when
// the bank confirmed it, the bank's answer (names, accounts) and the
// receiver the caller asked to check: a pass redacts them as it redacts a
// verification record, and keeps the rest, which GET
// /api/v1/verifications/{id} and the checkout page still answer from. An
// open re-check is still at work: a pass leaves it alone. What is left is
// read through the engine's own driver (test/helpers/raw-records.ts).
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/keys/api-key.js';
import type { Store } from '../../src/domain/ports/store.js';
import { redactRecheckPersonalData } from '../../src/domain/rechecks/redaction.js';
import type { Recheck, RecheckOutcome } from '../../src/domain/rechecks/types.js';
import { verificationView } from '../../src/domain/rechecks/view.js';
import { removePersonalData, retentionCutoff } from '../../src/domain/personal-data/retention.js';
import { openStore } from '../../src/store/open.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { openRawRecords, type RawRecheck, type RawRecords } from '../helpers/raw-records.js';
import { PERSONAL as SLIP_PERSONAL, personalSlip } from './personal-slip.js';

const DAY = 86_400_000;
/** The injected clock: every pass below runs "now" at this instant. */
const NOW = new Date('2026-06-01T00:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const CUTOFF = retentionCutoff(NOW, 365);
const PURGED = { complete: true, detail: expect.any(String) };
/** A pass that touches only re-checks: no verification record or failed request was seeded. */
const ONLY_RECHECKS = { redacted: 0, deleted: 0 };

/** Everything in a bank answer, a QR text or a check that names a person or an account. */
const PERSONAL = [...SLIP_PERSONAL, 'SOMCHAI JAIDEE', 'ดีดี คอฟฟี่'];
/** The receiver the caller asked to check (`checks.receiverName`, `checks.receiverAccount`). */
const ASKED = { receiverName: 'ดีดี คอฟฟี่', receiverAccount: '3109', amountSatang: 25050 };

/** What a confirmed re-check's finish stores (rechecks/worker.ts): the success answer's fields. */
function verifiedResult(transRef: string): string {
  return JSON.stringify({
    verificationId: `req_paid${transRef.slice(-8)}`,
    data: personalSlip(transRef, 250.5),
    checks: {
      receiverName: { passed: true, expected: ASKED.receiverName, actual: ['บจก. ดีดี', 'DEEDEE CO'] },
      receiverAccount: { passed: true, expected: ASKED.receiverAccount, actual: ['xxx-x-x3109-x'] },
      amount: { passed: true, expected: 250.5, actual: 250.5 },
    },
    paymentRequest: { id: 'pr_test', status: 'paid' },
  });
}

/** The fields a redaction may change; every other one must stay exactly as stored. */
const footprint = ({ qrcode: _q, result: _r, options: _o, redactedAt: _d, ...kept }: RawRecheck) => kept;

describe.each(testEngines())('finished re-checks under retention and erasure: %s', (engine) => {
  let store: Store;
  let raw: RawRecords;

  beforeEach(async () => {
    const url = await engine.databaseUrl();
    store = await openStore(url);
    raw = await openRawRecords(url);
  });
  afterEach(async () => {
    await raw?.close();
    await store?.close();
  });
  afterAll(() => engine.dispose());

  async function account(): Promise<string> {
    const acc = await store.createAccount({ id: newId('acc'), name: 'ร้านกาแฟ ดีดี', createdAt: ago(500 * DAY) });
    return acc.id;
  }

  /** A slip kept for re-checks at `createdAt`, sent in a LINE chat; ended with `outcome` a minute later, or left open. */
  async function kept(accountId: string, createdAt: Date, outcome: RecheckOutcome | 'open', over: Partial<Recheck> = {}): Promise<Recheck> {
    const id = newId('req');
    const transRef = `TR${id.slice(-12).toUpperCase()}`;
    const r: Recheck = {
      id,
      accountId,
      keyId: 'key_test',
      requestId: id,
      paymentRequestId: 'pr_test',
      qrcode: slipQr('004', transRef),
      sendingBank: '004',
      transRef,
      options: JSON.stringify(ASKED),
      createdAt,
      deadline: new Date(createdAt.getTime() + 600_000),
      nextAttemptAt: new Date(createdAt.getTime() + 15_000),
      attempts: 0,
      attemptId: null,
      outcome: null,
      finishedAt: null,
      result: null,
      lineChannelId: 'lch_test',
      lineUserId: 'U4af4980629b3f8c2d1e0a9b8c7d6e5f4',
      ...over,
    };
    expect(await store.createRecheck(r, 1000)).toBe(true);
    if (outcome === 'open') return r;
    const result = outcome === 'verified' ? verifiedResult(transRef) : null;
    expect(await store.finishRecheck(id, { outcome, at: new Date(createdAt.getTime() + 60_000), result })).toBe(true);
    return r;
  }

  /** Two accounts with finished and open re-checks on both sides of the cutoff (CUTOFF itself is inside the period). */
  async function seed() {
    const a = await account();
    const b = await account();
    const oldFinished = [
      await kept(a, ago(400 * DAY), 'verified'),
      await kept(a, ago(366 * DAY), 'unconfirmed', { qrcode: 'NAME:SOMCHAI JAIDEE;ACC:1234' }),
      await kept(b, new Date(CUTOFF.getTime() - 1), 'verified'),
      await kept(b, ago(380 * DAY), 'refused'),
    ];
    // Open for a year: a worker that never ran. Still open, so still at work as far as a pass knows.
    const oldOpen = await kept(a, ago(400 * DAY), 'open');
    const recentFinished = [await kept(a, CUTOFF, 'verified'), await kept(b, ago(DAY), 'superseded')];
    const recentOpen = [await kept(a, ago(60_000), 'open'), await kept(b, ago(60_000), 'open')];
    return { a, b, oldFinished, oldOpen, recentFinished, recentOpen };
  }

  const byId = async () => new Map((await raw.rechecks()).map((r) => [r.id, r]));

  /** A finished re-check as a pass leaves it: its footprint as it was, nothing personal, the verdicts readers need. */
  function expectRedacted(stored: RawRecheck, was: RawRecheck) {
    expect(stored.redactedAt?.toISOString()).toBe(NOW.toISOString());
    expect(footprint(stored)).toEqual(footprint(was));
    const text = JSON.stringify(stored);
    for (const personal of PERSONAL) expect(text).not.toContain(personal);
    expect(JSON.parse(stored.options!)).toEqual({ ...ASKED, receiverName: '', receiverAccount: '' });
    if (was.outcome !== 'verified') {
      expect(stored.result).toBeNull();
      return;
    }
    const result = JSON.parse(stored.result!);
    const wasResult = JSON.parse(was.result!);
    expect(result).toMatchObject({ verificationId: wasResult.verificationId, paymentRequest: { id: 'pr_test', status: 'paid' } });
    expect(result.data).toMatchObject({ amount: 250.5, transactionId: was.transRef, dateTime: wasResult.data.dateTime, senderBankCode: '004', receiverBankCode: '014', senderName: '', rawData: {} });
    expect(result.checks).toEqual({
      receiverName: { passed: true, expected: '', actual: [] },
      receiverAccount: { passed: true, expected: '', actual: [] },
      amount: wasResult.checks.amount,
    });
  }

  it('redacts exactly the finished re-checks older than the period, and leaves the open and the recent ones whole', async () => {
    const s = await seed();
    const before = await byId();

    // Batches of 2: the pass must go on until nothing is left, not stop after one.
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, batchSize: 2 })).toEqual({ ...ONLY_RECHECKS, rechecks: 4, dryRun: false, purge: PURGED });

    const after = await byId();
    expect(after.size).toBe(9);
    for (const r of s.oldFinished) expectRedacted(after.get(r.id)!, before.get(r.id)!);
    // The slip QR names only the bank and the reference: kept. The other QR text carried a name: gone.
    expect(after.get(s.oldFinished[0]!.id)!.qrcode).toBe(s.oldFinished[0]!.qrcode);
    expect(after.get(s.oldFinished[1]!.id)!.qrcode).toBe('');
    // Open ones (however old, their LINE user and all) and recent ones are exactly as they were.
    for (const r of [s.oldOpen, ...s.recentFinished, ...s.recentOpen]) expect(after.get(r.id)).toEqual(before.get(r.id));
    expect(after.get(s.oldOpen.id)!.lineUserId).toBe(s.oldOpen.lineUserId);

    // Through the store, as its caller reads it: still a success, with the charged record's id, and no names.
    const got = (await store.getRecheck(s.oldFinished[0]!.id))!;
    expect(verificationView(got)).toMatchObject({ status: 'success', verificationId: got.id, recordId: JSON.parse(before.get(got.id)!.result!).verificationId, data: { amount: 250.5, senderName: '' } });
    expect(verificationView((await store.getRecheck(s.oldFinished[1]!.id))!)).toMatchObject({ status: 'unconfirmed', reason: 'not_confirmed' });

    // A second pass finds nothing more, and leaves the first one's time.
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: new Date(NOW.getTime() + 1000) })).toEqual({ ...ONLY_RECHECKS, rechecks: 0, dryRun: false, purge: PURGED });
    expect(await byId()).toEqual(after);
  });

  it("erasure redacts every finished re-check of one account whatever its age, and leaves its open ones and the other account's alone", async () => {
    const s = await seed();
    const before = await byId();
    expect(await removePersonalData(store, { accountId: s.a }, { now: NOW, batchSize: 2 })).toEqual({ ...ONLY_RECHECKS, rechecks: 3, dryRun: false, purge: PURGED });

    const after = await byId();
    const erased = [s.oldFinished[0]!, s.oldFinished[1]!, s.recentFinished[0]!];
    for (const r of erased) expectRedacted(after.get(r.id)!, before.get(r.id)!);
    for (const [id, r] of after) if (!erased.some((e) => e.id === id)) expect(r).toEqual(before.get(id));
  });

  it('a dry run counts the finished re-checks in scope and changes nothing', async () => {
    const s = await seed();
    const before = await raw.rechecks();
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, dryRun: true })).toEqual({ ...ONLY_RECHECKS, rechecks: 4, dryRun: true });
    expect(await removePersonalData(store, { accountId: s.b }, { now: NOW, dryRun: true })).toEqual({ ...ONLY_RECHECKS, rechecks: 3, dryRun: true });
    expect(await raw.rechecks()).toEqual(before);
    // A redacted re-check is not counted again.
    await removePersonalData(store, { accountId: s.b }, { now: NOW });
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, dryRun: true })).toEqual({ ...ONLY_RECHECKS, rechecks: 2, dryRun: true });
  });

  it('each batch starts strictly after the cursor it is given, in (createdAt, id) order, ties included, past open ones', async () => {
    const a = await account();
    const at = (days: number) => ago(days * DAY);
    // Two share a millisecond: the id orders them. An open one sits among them.
    const [r1, t1, t2, r4] = [await kept(a, at(50), 'unconfirmed'), await kept(a, at(40), 'verified'), await kept(a, at(40), 'no_credit'), await kept(a, at(30), 'superseded')];
    const open = await kept(a, at(35), 'open');
    const [tieFirst, tieSecond] = [t1, t2].sort((x, y) => (x.id < y.id ? -1 : 1)) as [Recheck, Recheck];
    const cursorOf = (r: Recheck) => ({ createdAt: r.createdAt, id: r.id });
    const redactedIds = async () => (await raw.rechecks()).filter((r) => r.redactedAt).map((r) => r.id).sort();

    const scope = { accountId: a };
    const first = await store.redactFinishedRechecks(scope, redactRecheckPersonalData, NOW, { limit: 2, after: cursorOf(tieFirst) });
    expect(first).toEqual({ changed: 2, last: cursorOf(r4) });
    // Nothing at or before the cursor was read, though it was not redacted; the open one was passed over.
    expect(await redactedIds()).toEqual([tieSecond.id, r4.id].sort());
    expect(await store.redactFinishedRechecks(scope, redactRecheckPersonalData, NOW, { limit: 2, after: first.last })).toEqual({ changed: 0, last: null });
    // From the start: what the account's batches passed over, before their first cursor.
    expect(await store.redactFinishedRechecks({ createdBefore: at(35) }, redactRecheckPersonalData, NOW, { limit: 5, after: null })).toEqual({ changed: 2, last: cursorOf(tieFirst) });
    expect(await redactedIds()).toEqual([r1.id, tieFirst.id, tieSecond.id, r4.id].sort());
    expect((await raw.rechecks()).find((r) => r.id === open.id)).toMatchObject({ redactedAt: null, finishedAt: null, options: JSON.stringify(ASKED) });
  });
});
