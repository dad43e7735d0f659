// The re-check part of the store contract (contract.ts calls it inside its
// describe, so every engine runs it): re-checks stored whole, the bound on
// an account's unfinished ones, the due read, conditional postpone and
// finish (with the finish's event in the same write), the LINE chat a slip
// sent in LINE is pushed to, all checked through the engine's own driver.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { Recheck } from '../../src/domain/rechecks/types.js';
import type { NewWebhookDelivery } from '../../src/domain/webhooks/types.js';
import type { CreditHold, VerifyTransactionRecord } from '../../src/domain/types.js';

/** What the probe reads of re-checks through the engine's own driver. */
export interface RecheckProbe {
  /** The re-check as stored (its attempts, next attempt, outcome and when it finished); null when there is none. */
  storedRecheck(id: string): Promise<{ attempts: number; nextAttemptAt: Date; attemptId: string | null; outcome: string | null; finishedAt: Date | null; qrcode: string; lineChannelId: string | null; lineUserId: string | null } | null>;
  webhookDeliveryIds(accountId: string): Promise<string[]>;
  /** Whether the engine holds an index that serves the read of a slip's open re-checks (account, transaction reference). */
  slipIndexed(): Promise<boolean>;
}

interface Fixtures {
  store: () => Store;
  probe: () => RecheckProbe;
  account: (credits?: number) => Promise<string>;
  hold: (accountId: string) => CreditHold;
  vt: (accountId: string, holdId: string, over?: Partial<VerifyTransactionRecord>) => VerifyTransactionRecord;
}

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);

function recheck(accountId: string, over: Partial<Recheck> = {}): Recheck {
  const created = seconds(Date.now() - 60_000);
  return {
    id: `req_${randomUUID().replaceAll('-', '')}`,
    accountId,
    keyId: 'key_test',
    requestId: `req_${randomUUID().slice(0, 8)}`,
    paymentRequestId: null,
    qrcode: '0041000600000101030040220013071152533APM077365102TH91048134',
    sendingBank: '004',
    transRef: '013071152533APM07736',
    options: null,
    createdAt: created,
    deadline: new Date(created.getTime() + 600_000),
    nextAttemptAt: new Date(created.getTime() + 15_000),
    attempts: 0,
    attemptId: null,
    outcome: null,
    finishedAt: null,
    result: null,
    lineChannelId: null,
    lineUserId: null,
    ...over,
  };
}

function delivery(accountId: string): NewWebhookDelivery {
  return {
    id: `whd_${randomUUID().replaceAll('-', '')}`,
    eventId: `evt_${randomUUID().replaceAll('-', '')}`,
    endpointId: 'whe_test',
    accountId,
    type: 'payment_request.slip_unconfirmed',
    body: '{"type":"payment_request.slip_unconfirmed"}',
    createdAt: seconds(Date.now()),
  };
}

export function recheckContract(f: Fixtures): void {
  describe('rechecks', () => {
    it('stores a re-check whole, lists the open ones by account and request, and bounds an account’s open ones', async () => {
      const store = f.store();
      const accountId = await f.account();
      const older = recheck(accountId, { paymentRequestId: 'pr_one', createdAt: seconds(Date.now() - 120_000), options: '{"amount":100}' });
      const newer = recheck(accountId);
      expect(await store.createRecheck(older, 2)).toBe(true);
      expect(await store.createRecheck(newer, 2)).toBe(true);
      // The bound counts unfinished ones: a third is refused and not stored.
      const third = recheck(accountId);
      expect(await store.createRecheck(third, 2)).toBe(false);
      expect(await f.probe().storedRecheck(third.id)).toBeNull();
      expect(await store.getRecheck(older.id)).toEqual(older);
      expect(await f.probe().storedRecheck(older.id)).toMatchObject({ attempts: 0, outcome: null, finishedAt: null, qrcode: older.qrcode });
      expect(await store.openRechecks({ accountId, limit: 10 })).toEqual([newer, older]);
      expect(await store.openRechecks({ accountId, paymentRequestId: 'pr_one', limit: 10 })).toEqual([older]);
      expect(await store.openRechecks({ accountId: await f.account(), paymentRequestId: 'pr_one', limit: 10 })).toEqual([]);
      expect(await store.getRecheck('req_missing')).toBeNull();
      // A finished one frees its place.
      expect(await store.finishRecheck(newer.id, { outcome: 'superseded', at: new Date() })).toBe(true);
      expect(await store.createRecheck(third, 2)).toBe(true);
      await expect(store.createRecheck(recheck('acc_missing'), 2)).rejects.toMatchObject({ code: 'conflict' });
    });

    it('reads due re-checks soonest first, postpones and finishes only unfinished ones, the finish’s event in the same write', async () => {
      const store = f.store();
      const accountId = await f.account();
      const base = Date.now() + 3_600_000 * 24 * 365; // due later than any other test's re-checks
      const late = recheck(accountId, { nextAttemptAt: seconds(base + 20_000) });
      const soon = recheck(accountId, { nextAttemptAt: seconds(base + 10_000) });
      const future = recheck(accountId, { nextAttemptAt: seconds(base + 90_000) });
      for (const r of [late, soon, future]) await store.createRecheck(r, 100);
      const open = await store.countOpenRechecks();
      expect(open).toBeGreaterThanOrEqual(3);
      const due = (await store.dueRechecks(seconds(base + 30_000), 1000)).filter((r) => r.accountId === accountId);
      expect(due.map((r) => r.id)).toEqual([soon.id, late.id]);

      const next = { attempts: 1, nextAttemptAt: seconds(base + 100_000), attemptId: 'req_attempt1' };
      expect(await store.postponeRecheck(soon.id, next)).toBe(true);
      expect(await f.probe().storedRecheck(soon.id)).toMatchObject(next);
      expect((await store.dueRechecks(seconds(base + 30_000), 1000)).map((r) => r.id)).not.toContain(soon.id);

      const event = delivery(accountId);
      const at = seconds(Date.now());
      expect(await store.finishRecheck(late.id, { outcome: 'unconfirmed', at }, [event])).toBe(true);
      expect(await f.probe().storedRecheck(late.id)).toMatchObject({ outcome: 'unconfirmed', finishedAt: at });
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual([event.id]);
      expect(await store.countOpenRechecks()).toBe(open - 1);
      // Finished: no second finish (nor its event), no postpone, not due.
      expect(await store.finishRecheck(late.id, { outcome: 'verified', at, result: '{}' }, [delivery(accountId)])).toBe(false);
      expect(await store.postponeRecheck(late.id, next)).toBe(false);
      expect(await f.probe().storedRecheck(late.id)).toMatchObject({ outcome: 'unconfirmed', attempts: 0 });
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual([event.id]);
      expect((await store.dueRechecks(seconds(base + 200_000), 1000)).map((r) => r.id)).not.toContain(late.id);
      expect(await store.finishRecheck(future.id, { outcome: 'verified', at, result: '{"slip":1}' })).toBe(true);
      expect(await store.getRecheck(future.id)).toMatchObject({ outcome: 'verified', finishedAt: at, result: '{"slip":1}' });
    });

    it('keeps the LINE channel and customer of a slip sent in a chat, and none for the other ways in', async () => {
      const store = f.store();
      const accountId = await f.account();
      const chat = recheck(accountId, { keyId: 'line:1650000001', lineChannelId: '1650000001', lineUserId: 'U0000000000000000000000000000abcd' });
      const api = recheck(accountId);
      expect(await store.createRecheck(chat, 10)).toBe(true);
      expect(await store.createRecheck(api, 10)).toBe(true);
      expect(await f.probe().storedRecheck(chat.id)).toMatchObject({ lineChannelId: '1650000001', lineUserId: 'U0000000000000000000000000000abcd' });
      expect(await f.probe().storedRecheck(api.id)).toMatchObject({ lineChannelId: null, lineUserId: null });
      expect(await store.getRecheck(chat.id)).toEqual(chat);
      expect(await store.getRecheck(api.id)).toEqual(api);
      // The due read carries them too: the worker pushes from what it read.
      const due = (await store.dueRechecks(new Date(chat.nextAttemptAt.getTime() + 1), 1000)).find((r) => r.id === chat.id);
      expect(due).toMatchObject({ lineChannelId: '1650000001', lineUserId: 'U0000000000000000000000000000abcd' });
      // Finished, it no longer names the customer (personal data); the channel stays.
      expect(await store.finishRecheck(chat.id, { outcome: 'unconfirmed', at: seconds(Date.now()) })).toBe(true);
      expect(await f.probe().storedRecheck(chat.id)).toMatchObject({ outcome: 'unconfirmed', lineChannelId: '1650000001', lineUserId: null });
    });

    it('lists the open re-checks of one slip (its bank and reference), newest first, from an index', async () => {
      const store = f.store();
      const accountId = await f.account();
      const slip = { sendingBank: '014', transRef: `RS${randomUUID().replaceAll('-', '').slice(0, 18)}` };
      const older = recheck(accountId, { ...slip, createdAt: seconds(Date.now() - 120_000), keyId: 'line:1650000001', lineChannelId: '1650000001', lineUserId: 'U0000000000000000000000000000abcd' });
      const newer = recheck(accountId, slip);
      const done = recheck(accountId, slip);
      const otherBank = recheck(accountId, { ...slip, sendingBank: '004' });
      const otherSlip = recheck(accountId);
      const elsewhere = recheck(await f.account(), slip);
      for (const r of [older, newer, done, otherBank, otherSlip, elsewhere]) expect(await store.createRecheck(r, 100)).toBe(true);
      expect(await store.finishRecheck(done.id, { outcome: 'unconfirmed', at: seconds(Date.now()) })).toBe(true);
      expect(await store.openRechecks({ accountId, slip, limit: 10 })).toEqual([newer, older]);
      expect(await store.openRechecks({ accountId, slip, limit: 1 })).toEqual([newer]);
      expect(await store.openRechecks({ accountId, slip: { sendingBank: '004', transRef: slip.transRef }, limit: 10 })).toEqual([otherBank]);
      expect(await store.openRechecks({ accountId, slip: { sendingBank: '014', transRef: 'RS_NONE' }, limit: 10 })).toEqual([]);
      // Finished, a slip's re-check is no longer listed (nor its customer kept).
      expect(await store.finishRecheck(older.id, { outcome: 'verified', at: seconds(Date.now()), result: '{}' })).toBe(true);
      expect(await store.openRechecks({ accountId, slip, limit: 10 })).toEqual([newer]);
      expect(await f.probe().slipIndexed()).toBe(true);
    });

    it('tells whether a confirmed attempt’s settle committed', async () => {
      const store = f.store();
      const accountId = await f.account(1);
      const h = f.hold(accountId);
      expect(await store.verificationRecorded(h.id)).toBe(false);
      await store.holdCredit(h);
      expect(await store.verificationRecorded(h.id)).toBe(false);
      await store.settleHold(f.vt(accountId, h.id));
      expect(await store.verificationRecorded(h.id)).toBe(true);
    });
  });
}
