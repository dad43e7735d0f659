// The storage contract: every engine runs this suite unchanged. Writes are
// checked through the engine itself (the probe), not only through the adapter.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey, LedgerEntry, Receiver, RequestErrorRecord, VerifyTransactionRecord } from '../../src/domain/types.js';
import { StoreError, type Store } from '../../src/domain/ports/store.js';
import { skippedNote, skippingCase, type CaseFn } from '../helpers/skipped-guarantees.js';
import { paymentContract } from './contract-payments.js';
import { paymentResolveContract, type PaymentProbe } from './contract-payment-resolve.js';
import { creditsLowContract, type CreditsLowProbe } from './contract-credits-low.js';
import { lineContract, type LineProbe } from './contract-line.js';
import { recheckContract, type RecheckProbe } from './contract-rechecks.js';
import { webhookContract, type WebhookProbe } from './contract-webhooks.js';

/** Direct reads through the engine's own driver, bypassing the adapter. */
interface EngineProbe extends WebhookProbe, LineProbe, PaymentProbe, CreditsLowProbe, RecheckProbe {
  balance(accountId: string): Promise<{ credits: number; usage: number } | null>;
  /** The account's name as stored. */
  accountName(accountId: string): Promise<string | null>;
  holdIds(accountId: string): Promise<string[]>;
  countVerifyTransactions(accountId: string): Promise<number>;
  /** The account's success records by id and request id, sorted by id (the charges: each settle writes one with usage +1). */
  verifyTransactionIds(accountId: string): Promise<{ id: string; requestId: string }[]>;
  /** The account's failure records by id and kind, sorted by id. */
  requestErrorIds(accountId: string): Promise<{ id: string; kind: string }[]>;
  requestErrorKinds(accountId: string): Promise<string[]>;
  ledgerDeltas(accountId: string): Promise<number[]>;
  /** Every stored column/field of the key, to prove no secret is kept. */
  storedKey(keyId: string): Promise<Record<string, unknown> | null>;
  /** The lease each of the account's holds was taken under (oldest hold first). */
  holdInstanceIds(accountId: string): Promise<(string | null)[]>;
  /** When the lease expires as stored; null when there is no record. */
  leaseExpiry(instanceId: string): Promise<Date | null>;
  /** Writes: the lease expired long ago (a process that stopped beating). */
  expireLease(instanceId: string): Promise<void>;
  /** Writes: a success record alone, as a settle that died before closing its hold leaves it on MongoDB. */
  insertSuccessRecord(accountId: string, holdId: string): Promise<void>;
  /** The account's stored receivers (oldest first), each with its number, bank and whether it is active. */
  storedReceivers(accountId: string): Promise<{ id: string; number: string; bankCode: string | null; active: boolean }[]>;
  /** The account's stored receiver policy; null for no such account. */
  storedReceiverPolicy(accountId: string): Promise<string | null>;
}

export interface EngineUnderTest {
  store: Store;
  probe: EngineProbe;
  /** Drops the throwaway database. */
  dispose(): Promise<void>;
}

export interface ContractOptions {
  /**
   * Engines whose conditional update is not atomic under concurrency (FerretDB
   * v1) name the reason here; the concurrency cases then run only against a
   * real server and print why.
   */
  concurrencyLimitation?: string;
}

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
/** Sorted copies, so sets of ids compare as sets whatever order an engine returns. */
const sorted = (ids: Iterable<string>) => [...ids].sort();
const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
const at = (iso: string) => new Date(iso);

export function storeContract(name: string, open: () => Promise<EngineUnderTest>, options: ContractOptions = {}): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let probe: EngineProbe;
    let engine: EngineUnderTest;

    beforeAll(async () => {
      engine = await open();
      store = engine.store;
      probe = engine.probe;
    });
    afterAll(async () => {
      await engine?.dispose();
    });

    async function account(credits = 0, name = 'Shop'): Promise<string> {
      const acc = await store.createAccount({ id: id('acc'), name, createdAt: new Date() });
      if (credits > 0) await store.applyLedgerEntry(ledger(acc.id, credits));
      return acc.id;
    }

    function ledger(accountId: string, delta: number, idempotencyKey: string | null = null): LedgerEntry {
      return { id: id('led'), accountId, kind: delta > 0 ? 'top_up' : 'adjustment', delta, reason: 'test', actor: 'contract', idempotencyKey, createdAt: new Date() };
    }

    function hold(accountId: string, createdAt = new Date(), instanceId: string | null = null) {
      return { id: id('req'), accountId, keyId: 'key_test', createdAt, instanceId };
    }

    function vt(accountId: string, holdId: string, over: Partial<VerifyTransactionRecord> = {}): VerifyTransactionRecord {
      return {
        id: holdId,
        accountId,
        keyId: 'key_test',
        requestId: holdId,
        qrcode: '0041000600000101030040220013071152533APM077365102TH91048134',
        transactionId: 'TX1',
        amount: 100.38,
        sendingBank: '004',
        receivingBank: '014',
        upstream: 'sandbox',
        latencyMs: 12,
        response: { amount: 100.38, rawData: { amount: '100.38', nested: { a: [1, 'x'] } } } as unknown as VerifyTransactionRecord['response'],
        createdAt: new Date(),
        ...over,
      };
    }

    function failure(accountId: string | null, holdId: string, over: Partial<RequestErrorRecord> = {}): RequestErrorRecord {
      return { id: holdId, accountId, keyId: null, requestId: holdId, qrcode: null, transactionId: null, sendingBank: null, kind: 'upstream_error', message: 'boom', upstream: 'kbank-a', latencyMs: 5, createdAt: new Date(), ...over };
    }

    // See ContractOptions.concurrencyLimitation: such engines run these cases
    // only when SLIPGATE_MONGO_IS_REAL says a real MongoDB is behind the URI,
    // and are otherwise listed as skipped guarantees at the end of the run.
    const concurrency = options.concurrencyLimitation ? skippingCase(it, skippedNote(name, options.concurrencyLimitation)) : (it as CaseFn);

    describe('accounts', () => {
      it('creates, reads back, lists by name and soft-deletes', async () => {
        const tag = randomUUID().slice(0, 8);
        const a = await account(0, `Coffee ${tag} Ltd`);
        const b = await account(0, `Tea ${tag}`);
        const got = await store.getAccount(a);
        expect(got).toMatchObject({ id: a, name: `Coffee ${tag} Ltd`, credits: 0, held: 0, usage: 0, deletedAt: null });
        expect(await probe.balance(a)).toEqual({ credits: 0, usage: 0 });

        const found = await store.listAccounts({ search: `coffee ${tag}`, limit: 10 });
        expect(found.items.map((x) => x.id)).toEqual([a]);
        expect((await store.getAccounts([a, b, 'acc_missing'])).map((x) => x.id).sort()).toEqual([a, b].sort());

        expect(await store.deleteAccount(a, new Date())).toBe(true);
        expect(await store.deleteAccount(a, new Date())).toBe(false);
        expect((await store.getAccount(a))?.deletedAt).toBeInstanceOf(Date);
        expect((await store.listAccounts({ search: tag, limit: 10 })).items.map((x) => x.id)).toEqual([b]);
      });

      it('renames a live account, and neither an unknown nor a deleted one', async () => {
        const a = await account(0, 'Old name');
        expect(await store.renameAccount(a, 'ร้านใหม่ New name')).toBe(true);
        expect(await probe.accountName(a)).toBe('ร้านใหม่ New name');
        expect((await store.getAccount(a))?.name).toBe('ร้านใหม่ New name');
        expect(await store.renameAccount('acc_missing', 'x')).toBe(false);
        expect(await store.deleteAccount(a, new Date())).toBe(true);
        expect(await store.renameAccount(a, 'After delete')).toBe(false);
        expect(await probe.accountName(a)).toBe('ร้านใหม่ New name');
      });

      it('pages accounts with a stable cursor', async () => {
        const tag = `page-${randomUUID().slice(0, 8)}`;
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) ids.push(await account(0, `${tag} ${i}`));
        const first = await store.listAccounts({ search: tag, limit: 2 });
        const second = await store.listAccounts({ search: tag, limit: 2, after: first.next });
        const third = await store.listAccounts({ search: tag, limit: 2, after: second.next });
        const seen = [...first.items, ...second.items, ...third.items].map((x) => x.id);
        expect(new Set(seen).size).toBe(5);
        expect(seen.sort()).toEqual([...ids].sort());
        expect(third.next).toBeNull();
      });
    });

    describe('api keys', () => {
      it('finds a key by hash only and keeps no secret', async () => {
        const accountId = await account();
        const key: ApiKey = { id: id('key'), accountId, prefix: 'slip_AbCd1234', hash: 'a'.repeat(60) + randomUUID().slice(0, 4), createdAt: new Date(), lastUsedAt: null, revokedAt: null, allowedIps: [] };
        await store.createApiKey(key);
        expect(await store.findApiKeyByHash(key.hash)).toMatchObject({ id: key.id, accountId, prefix: key.prefix, revokedAt: null, allowedIps: [] });
        expect(await store.findApiKeyByHash('b'.repeat(64))).toBeNull();
        const stored = await probe.storedKey(key.id);
        expect(stored).not.toBeNull();
        expect(Object.values(stored!).filter((v) => typeof v === 'string' && v.startsWith('slip_') && v !== key.prefix)).toEqual([]);

        await store.touchApiKey(key.id, at('2026-01-02T03:04:05Z'));
        expect((await store.getApiKey(key.id))?.lastUsedAt?.toISOString()).toBe('2026-01-02T03:04:05.000Z');
        expect(await store.revokeApiKey(key.id, new Date())).toBe(true);
        expect(await store.revokeApiKey(key.id, new Date())).toBe(false);
        expect((await store.findApiKeyByHash(key.hash))?.revokedAt).toBeInstanceOf(Date);
        expect((await store.listApiKeys(accountId)).map((k) => k.id)).toEqual([key.id]);
      });

      it('stores allowed IP ranges with the key and replaces them', async () => {
        const accountId = await account();
        const ranges = ['127.0.0.1/32', '10.0.0.0/8', '2001:db8::/32'];
        const key: ApiKey = { id: id('key'), accountId, prefix: 'slip_Ip', hash: randomUUID().replaceAll('-', '').padEnd(64, '1'), createdAt: new Date(), lastUsedAt: null, revokedAt: null, allowedIps: ranges };
        await store.createApiKey(key);
        expect((await store.findApiKeyByHash(key.hash))?.allowedIps).toEqual(ranges);
        expect(await store.setApiKeyAllowedIps(key.id, ['::1/128'])).toBe(true);
        expect((await store.getApiKey(key.id))?.allowedIps).toEqual(['::1/128']);
        expect((await store.listApiKeys(accountId))[0]?.allowedIps).toEqual(['::1/128']);
        expect(await store.setApiKeyAllowedIps(key.id, [])).toBe(true);
        expect((await store.findApiKeyByHash(key.hash))?.allowedIps).toEqual([]);
        expect(await store.setApiKeyAllowedIps('key_missing', ['::1/128'])).toBe(false);
      });

      it('rejects a second key with the same hash as a conflict', async () => {
        const accountId = await account();
        const hash = randomUUID().replaceAll('-', '').padEnd(64, '0');
        const base = { accountId, prefix: 'slip_x', hash, createdAt: new Date(), lastUsedAt: null, revokedAt: null, allowedIps: [] };
        await store.createApiKey({ ...base, id: id('key') });
        const err = await store.createApiKey({ ...base, id: id('key') }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreError);
        expect((err as StoreError).code).toBe('conflict');
      });
    });

    describe('receivers', () => {
      const receiver = (accountId: string, over: Partial<Receiver> = {}): Receiver => ({
        id: id('rcv'),
        accountId,
        kind: 'bank',
        bankCode: '004',
        number: '1234567890',
        proxyType: null,
        nameTh: 'ร้านกาแฟ ดีดี',
        nameEn: null,
        label: null,
        active: true,
        createdAt: new Date(),
        ...over,
      });

      it('registers receivers per account, reads them back as stored, deactivates and deletes them', async () => {
        const accountId = await account();
        const other = await account();
        const bank = receiver(accountId, { label: 'สาขา 1', createdAt: at('2026-01-01T00:00:00Z') });
        const promptPay = receiver(accountId, {
          kind: 'promptpay',
          bankCode: null,
          number: '0812345678',
          proxyType: 'MSISDN',
          nameTh: null,
          nameEn: 'DEEDEE COFFEE',
          createdAt: at('2026-01-02T00:00:00Z'),
        });
        await store.createReceiver(promptPay);
        await store.createReceiver(bank);
        await store.createReceiver(receiver(other));
        expect(await store.listReceivers(accountId)).toEqual([bank, promptPay]);
        expect(await store.getReceiver(promptPay.id)).toEqual(promptPay);
        expect(await store.getReceiver('rcv_missing')).toBeNull();
        expect(await probe.storedReceivers(accountId)).toEqual([
          { id: bank.id, number: '1234567890', bankCode: '004', active: true },
          { id: promptPay.id, number: '0812345678', bankCode: null, active: true },
        ]);

        expect(await store.setReceiverActive(bank.id, false)).toBe(true);
        expect(await store.setReceiverActive('rcv_missing', false)).toBe(false);
        expect((await probe.storedReceivers(accountId)).map((r) => r.active)).toEqual([false, true]);
        expect(await store.deleteReceiver(promptPay.id)).toBe(true);
        expect(await store.deleteReceiver(promptPay.id)).toBe(false);
        expect((await probe.storedReceivers(accountId)).map((r) => r.id)).toEqual([bank.id]);
        expect((await probe.storedReceivers(other)).length).toBe(1);
      });

      it('refuses a receiver of an unknown account and a used id as conflicts, storing nothing', async () => {
        const accountId = await account();
        const first = receiver(accountId);
        await store.createReceiver(first);
        for (const bad of [receiver('acc_missing'), { ...receiver(accountId), id: first.id }]) {
          const err = await store.createReceiver(bad).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(StoreError);
          expect((err as StoreError).code).toBe('conflict');
        }
        expect((await probe.storedReceivers(accountId)).map((r) => r.id)).toEqual([first.id]);
        expect(await probe.storedReceivers('acc_missing')).toEqual([]);
      });

      it("keeps each account's receiver policy, off by default, and never sets it on a deleted account", async () => {
        const accountId = await account();
        expect((await store.getAccount(accountId))?.receiverPolicy).toBe('off');
        expect(await probe.storedReceiverPolicy(accountId)).toBe('off');
        expect(await store.setReceiverPolicy(accountId, 'require')).toBe(true);
        expect(await probe.storedReceiverPolicy(accountId)).toBe('require');
        expect((await store.getAccounts([accountId]))[0]?.receiverPolicy).toBe('require');
        expect(await store.setReceiverPolicy('acc_missing', 'report')).toBe(false);
        await store.deleteAccount(accountId, new Date());
        expect(await store.setReceiverPolicy(accountId, 'report')).toBe(false);
        expect(await probe.storedReceiverPolicy(accountId)).toBe('require');
      });
    });

    describe('credit holds', () => {
      it('holds only while credits remain, and never for a missing or deleted account', async () => {
        const accountId = await account(1);
        const h = hold(accountId);
        expect(await store.holdCredit(h)).toEqual({ status: 'held', credits: 0 });
        expect(await probe.balance(accountId)).toEqual({ credits: 0, usage: 0 });
        expect(await probe.holdIds(accountId)).toEqual([h.id]);
        expect((await store.getAccount(accountId))?.held).toBe(1);
        expect(await store.holdCredit(hold(accountId))).toEqual({ status: 'insufficient' });
        expect(await store.holdCredit(hold('acc_missing'))).toEqual({ status: 'no_account' });

        const gone = await account(3);
        await store.deleteAccount(gone, new Date());
        expect(await store.holdCredit(hold(gone))).toEqual({ status: 'no_account' });
        expect(await probe.balance(gone)).toMatchObject({ credits: 3 });
      });

      it('settles a hold: one credit spent, usage +1, the record stored as given', async () => {
        const accountId = await account(2);
        const h = hold(accountId);
        await store.holdCredit(h);
        const record = vt(accountId, h.id);
        await store.settleHold(record);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 1 });
        expect(await probe.holdIds(accountId)).toEqual([]);
        expect(await probe.countVerifyTransactions(accountId)).toBe(1);
        const page = await store.listVerifyTransactions({ accountId, limit: 10 });
        expect(page.items).toHaveLength(1);
        expect(page.items[0]).toMatchObject({ id: h.id, transactionId: 'TX1', amount: 100.38, upstream: 'sandbox', latencyMs: 12 });
        expect(page.items[0]!.response).toEqual(record.response);
        expect(await store.auditTotals(accountId)).toEqual({ credits: 1, held: 0, usage: 1, ledgerTotal: 2, verifyTransactions: 1 });
        expect(await store.auditTotals('acc_missing')).toBeNull();

        const again = await store.settleHold(record).catch((e: unknown) => e);
        expect(again).toBeInstanceOf(StoreError);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 1 });
      });

      it('releases a hold: the credit comes back and the failure is recorded', async () => {
        const accountId = await account(1);
        const h = hold(accountId);
        await store.holdCredit(h);
        expect(await store.releaseHold({ ...failure(accountId, h.id), accountId })).toBe(1);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 0 });
        expect(await probe.holdIds(accountId)).toEqual([]);
        expect(await probe.requestErrorKinds(accountId)).toEqual(['upstream_error']);
        // A second release of the same hold gives nothing back twice.
        expect(await store.releaseHold({ ...failure(accountId, h.id), accountId })).toBe(1);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 0 });
      });

      it('a hold reports the balance its own write left, and settling does not change it', async () => {
        const accountId = await account(3);
        const first = hold(accountId);
        expect(await store.holdCredit(first)).toEqual({ status: 'held', credits: 2 });
        expect(await store.holdCredit(hold(accountId))).toEqual({ status: 'held', credits: 1 });
        await store.settleHold(vt(accountId, first.id));
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 1 });
      });

      concurrency('fails a bad settle alone: concurrent good settles and releases still land', async () => {
        const accountId = await account(4);
        const holds = [hold(accountId), hold(accountId), hold(accountId)];
        await Promise.all(holds.map((h) => store.holdCredit(h)));
        const [a, b, c] = holds as [ReturnType<typeof hold>, ReturnType<typeof hold>, ReturnType<typeof hold>];
        const results = await Promise.allSettled([
          store.settleHold(vt(accountId, a.id)),
          store.settleHold(vt(accountId, 'hold_that_never_was')),
          store.releaseHold({ ...failure(accountId, b.id), accountId }),
          store.settleHold(vt(accountId, c.id, { transactionId: 'TX3' })),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
        expect(await probe.balance(accountId)).toEqual({ credits: 2, usage: 2 });
        expect(await probe.holdIds(accountId)).toEqual([]);
        expect(await probe.countVerifyTransactions(accountId)).toBe(2);
        expect(await probe.requestErrorKinds(accountId)).toEqual(['upstream_error']);
        // Who was told what is who was recorded: a and c charged, b refunded.
        expect(byId(await probe.verifyTransactionIds(accountId))).toEqual(byId([a, c].map((h) => ({ id: h.id, requestId: h.id }))));
        expect(await probe.requestErrorIds(accountId)).toEqual([{ id: b.id, kind: 'upstream_error' }]);
      });

      concurrency(`200 holds ${name === 'sqlite' ? 'issued at once (run one by one)' : 'racing each other'} against 50 credits: exactly 50 succeed`, async () => {
        const accountId = await account(50);
        const holds = Array.from({ length: 200 }, () => hold(accountId));
        const results = await Promise.all(holds.map((h) => store.holdCredit(h)));
        expect(results.filter((r) => r.status === 'held')).toHaveLength(50);
        expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(150);
        expect(await probe.balance(accountId)).toEqual({ credits: 0, usage: 0 });
        expect(await probe.holdIds(accountId)).toHaveLength(50);
        // The holds stored are exactly those of the callers told "held", each with the balance its own write left.
        expect(sorted(await probe.holdIds(accountId))).toEqual(sorted(holds.filter((_, i) => results[i]!.status === 'held').map((h) => h.id)));
        expect(sorted(results.flatMap((r) => (r.status === 'held' ? [String(r.credits)] : [])))).toEqual(sorted(Array.from({ length: 50 }, (_, i) => String(i))));
      });

      it('recovers stale holds and leaves fresh ones alone', async () => {
        const accountId = await account(3);
        const stale = hold(accountId, at('2020-01-01T00:00:00Z'));
        const fresh = hold(accountId);
        await store.holdCredit(stale);
        await store.holdCredit(fresh);
        const result = await store.recoverStaleHolds(new Date(Date.now() - 60_000), new Date());
        expect(result.released).toBeGreaterThanOrEqual(1);
        expect(await probe.holdIds(accountId)).toEqual([fresh.id]);
        expect(await probe.balance(accountId)).toEqual({ credits: 2, usage: 0 });
        expect(await probe.requestErrorKinds(accountId)).toEqual(['interrupted']);
        expect((await store.listHolds(accountId)).map((x) => x.id)).toEqual([fresh.id]);
        // Recovering again finds nothing more for this account.
        await store.recoverStaleHolds(new Date(Date.now() - 60_000), new Date());
        expect(await probe.balance(accountId)).toEqual({ credits: 2, usage: 0 });
      });
    });

    describe('leases', () => {
      const TTL_MS = 6_000;
      const young = () => new Date(Date.now() - 60_000);

      it('recovers the holds of an expired lease at once, whatever their age, and leaves a live lease\u2019s alone', async () => {
        const accountId = await account(3);
        const lease = id('ins');
        await store.startLease(lease, TTL_MS, new Date());
        const interrupted = hold(accountId, new Date(), lease);
        const recorded = hold(accountId, new Date(), lease);
        await store.holdCredit(interrupted);
        await store.holdCredit(recorded);
        await probe.insertSuccessRecord(accountId, recorded.id);
        expect(await probe.holdInstanceIds(accountId)).toEqual([lease, lease]);
        expect((await store.listHolds(accountId)).map((h) => h.instanceId)).toEqual([lease, lease]);

        // Live lease, holds younger than the age cutoff: nothing to do.
        await store.recoverStaleHolds(young(), new Date());
        expect((await probe.holdIds(accountId)).sort()).toEqual([interrupted.id, recorded.id].sort());
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 0 });

        await probe.expireLease(lease);
        const result = await store.recoverStaleHolds(young(), new Date());
        expect(result.consumed).toBeGreaterThanOrEqual(1);
        expect(result.released).toBeGreaterThanOrEqual(1);
        expect(await probe.holdIds(accountId)).toEqual([]);
        // The hold with a success record is charged, the other refunded as interrupted.
        expect(await probe.balance(accountId)).toEqual({ credits: 2, usage: 1 });
        expect(await probe.requestErrorKinds(accountId)).toEqual(['interrupted']);
        expect((await store.listRequestErrors({ accountId, limit: 10 })).items.map((r) => r.id)).toEqual([interrupted.id]);
        expect(await store.auditTotals(accountId)).toEqual({ credits: 2, held: 0, usage: 1, ledgerTotal: 3, verifyTransactions: 1 });
        // Nothing is held under the dead lease any more: its record is gone too.
        expect(await probe.leaseExpiry(lease)).toBeNull();
      });

      it('leaves holds without a live lease to the age rule: none recorded, or the lease ended', async () => {
        const accountId = await account(3);
        const dead = id('ins');
        await store.startLease(dead, TTL_MS, new Date());
        await probe.expireLease(dead);
        const ended = id('ins');
        await store.startLease(ended, TTL_MS, new Date());
        expect(await probe.leaseExpiry(ended)).toBeInstanceOf(Date);
        const old = hold(accountId, at('2020-01-01T00:00:00Z'));
        const fresh = hold(accountId, new Date(Date.now() - 2_000));
        const underEnded = hold(accountId, new Date(Date.now() - 1_000), ended);
        for (const h of [old, fresh, underEnded]) expect(await store.holdCredit(h)).toMatchObject({ status: 'held' });
        await store.endLease(ended);
        expect(await probe.leaseExpiry(ended)).toBeNull();
        expect(await probe.holdInstanceIds(accountId)).toEqual([null, null, ended]);

        await store.recoverStaleHolds(young(), new Date());
        expect(await probe.holdIds(accountId)).toEqual([fresh.id, underEnded.id]);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 0 });
        expect(await probe.requestErrorKinds(accountId)).toEqual(['interrupted']);
        // The expired lease with nothing held under it is cleaned up.
        expect(await probe.leaseExpiry(dead)).toBeNull();
      });

      it('keeps the holds of a renewed lease; an expired lease is never renewed', async () => {
        const accountId = await account(1);
        const lease = id('ins');
        const t0 = new Date();
        const later = (ms: number) => new Date(t0.getTime() + ms);
        await store.startLease(lease, TTL_MS, t0);
        const first = await probe.leaseExpiry(lease);
        const h = hold(accountId, t0, lease);
        await store.holdCredit(h);

        // A longer TTL than the first: on PostgreSQL (the database clock) the renewal may come within the
        // millisecond the lease started in, and the probe reads milliseconds.
        expect(await store.renewLease(lease, 2 * TTL_MS, later(4_000))).toBe(true);
        const renewed = await probe.leaseExpiry(lease);
        expect(renewed!.getTime()).toBeGreaterThan(first!.getTime());
        // Past the first expiry: engines on the process clock would recover it had the renewal not moved it.
        await store.recoverStaleHolds(young(), later(TTL_MS + 2_000));
        expect(await probe.holdIds(accountId)).toEqual([h.id]);
        expect(await probe.leaseExpiry(lease)).toEqual(renewed);

        await probe.expireLease(lease);
        expect(await store.renewLease(lease, TTL_MS, new Date())).toBe(false);
        await store.recoverStaleHolds(young(), new Date());
        expect(await probe.holdIds(accountId)).toEqual([]);
        expect(await probe.balance(accountId)).toEqual({ credits: 1, usage: 0 });
        expect(await probe.requestErrorKinds(accountId)).toEqual(['interrupted']);
        expect(await store.renewLease(lease, TTL_MS, new Date())).toBe(false);
      });

      concurrency('two recoveries racing the settles of an expired lease end every hold exactly one way', async () => {
        const accountId = await account(20);
        const lease = id('ins');
        await store.startLease(lease, TTL_MS, new Date());
        const holds = Array.from({ length: 20 }, () => hold(accountId, new Date(), lease));
        for (const h of holds) expect(await store.holdCredit(h)).toMatchObject({ status: 'held' });
        await probe.expireLease(lease);
        // A process that woke up after its lease was taken over settles half of
        // them, each under a request id of its own (not the hold's id), so a
        // record written for the wrong caller shows.
        const settling = holds.filter((_, i) => i % 2);
        const requestIdOf = new Map(settling.map((h, i) => [h.id, `http_${i}_${h.id.slice(-6)}`]));
        const settles = settling.map((h) =>
          store.settleHold(vt(accountId, h.id, { requestId: requestIdOf.get(h.id)! })).then(
            () => 'settled' as const,
            (err: unknown) => {
              expect((err as StoreError).code).toBe('conflict');
              return 'lost' as const;
            },
          ),
        );
        const [settled] = await Promise.all([Promise.all(settles), store.recoverStaleHolds(young(), new Date()), store.recoverStaleHolds(young(), new Date())]);
        const won = settled.filter((s) => s === 'settled').length;
        expect(await probe.holdIds(accountId)).toEqual([]);
        expect(await probe.balance(accountId)).toEqual({ credits: 20 - won, usage: won });
        expect(await probe.countVerifyTransactions(accountId)).toBe(won);
        expect(await probe.requestErrorKinds(accountId)).toEqual(Array.from({ length: 20 - won }, () => 'interrupted'));
        // Identities, not counts: the callers told "settled" are exactly the
        // success records (hold id and the caller's request id), every other
        // hold is exactly one "interrupted" refund, and no hold is both.
        const told = settling.filter((_, i) => settled[i] === 'settled');
        expect(byId(await probe.verifyTransactionIds(accountId))).toEqual(byId(told.map((h) => ({ id: h.id, requestId: requestIdOf.get(h.id)! }))));
        const toldIds = new Set(told.map((h) => h.id));
        expect(byId(await probe.requestErrorIds(accountId))).toEqual(byId(holds.filter((h) => !toldIds.has(h.id)).map((h) => ({ id: h.id, kind: 'interrupted' }))));
      });
    });

    describe('credit ledger', () => {
      it('applies a top-up once per idempotency key', async () => {
        const accountId = await account();
        const key = `topup-${randomUUID()}`;
        const first = await store.applyLedgerEntry(ledger(accountId, 10, key));
        const second = await store.applyLedgerEntry(ledger(accountId, 10, key));
        expect(first.created).toBe(true);
        expect(second.created).toBe(false);
        expect(second.entry.id).toBe(first.entry.id);
        expect(second.account.credits).toBe(10);
        expect(await probe.balance(accountId)).toEqual({ credits: 10, usage: 0 });
        expect(await probe.ledgerDeltas(accountId)).toEqual([10]);
      });

      // better-sqlite3 is synchronous: on SQLite the 20 calls run one after another.
      it(`20 identical top-ups ${name === 'sqlite' ? 'issued at once (run one by one)' : 'racing each other'} grant credits exactly once`, async () => {
        const accountId = await account();
        const key = `topup-${randomUUID()}`;
        const results = await Promise.allSettled(Array.from({ length: 20 }, () => store.applyLedgerEntry(ledger(accountId, 7, key))));
        const created = results.filter((r) => r.status === 'fulfilled' && r.value.created);
        expect(created).toHaveLength(1);
        expect(await probe.balance(accountId)).toEqual({ credits: 7, usage: 0 });
        expect(await probe.ledgerDeltas(accountId)).toEqual([7]);
      });

      it('refuses a reused key for a different change, an overdraft and an unknown account', async () => {
        const accountId = await account(5);
        const key = `k-${randomUUID()}`;
        await store.applyLedgerEntry(ledger(accountId, 3, key));
        await expect(store.applyLedgerEntry(ledger(accountId, 4, key))).rejects.toMatchObject({ code: 'conflict' });
        // Same account and amount, but an adjustment is not the top-up the key was for.
        await expect(store.applyLedgerEntry({ ...ledger(accountId, 3, key), kind: 'adjustment' })).rejects.toMatchObject({ code: 'conflict' });
        await expect(store.applyLedgerEntry(ledger(accountId, -9))).rejects.toMatchObject({ code: 'insufficient' });
        await expect(store.applyLedgerEntry(ledger('acc_missing', 1))).rejects.toMatchObject({ code: 'not_found' });
        const adjusted = await store.applyLedgerEntry(ledger(accountId, -8));
        expect(adjusted.account.credits).toBe(0);
        expect(await probe.balance(accountId)).toEqual({ credits: 0, usage: 0 });
        expect((await store.listLedger(accountId, 10)).map((e) => e.delta).sort()).toEqual([-8, 3, 5]);
        expect(await store.auditTotals(accountId)).toEqual({ credits: 0, held: 0, usage: 0, ledgerTotal: 0, verifyTransactions: 0 });
      });
    });

    describe('audit records', () => {
      it('pages by account, time range, transactionId, bank and kind', async () => {
        const a = await account();
        const b = await account();
        const base = Date.parse('2026-03-01T00:00:00Z');
        for (let i = 0; i < 25; i++) {
          const owner = i % 5 === 0 ? b : a;
          const h = hold(owner);
          await store.applyLedgerEntry(ledger(owner, 1));
          await store.holdCredit(h);
          await store.settleHold(vt(owner, h.id, { transactionId: `TX-${i}`, sendingBank: i % 2 ? '014' : '004', createdAt: new Date(base + i * 60_000) }));
        }
        const all: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await store.listVerifyTransactions({ accountId: a, limit: 7, after: cursor });
          all.push(...page.items.map((r) => r.transactionId));
          cursor = page.next;
        } while (cursor);
        expect(all).toHaveLength(20);
        expect(new Set(all).size).toBe(20);
        expect(all[0]).toBe('TX-24');

        const ranged = await store.listVerifyTransactions({ accountId: a, from: new Date(base + 10 * 60_000), to: new Date(base + 15 * 60_000), limit: 50 });
        expect(ranged.items.map((r) => r.transactionId)).toEqual(['TX-14', 'TX-13', 'TX-12', 'TX-11']);
        expect((await store.listVerifyTransactions({ transactionId: 'TX-5', limit: 5 })).items.map((r) => r.accountId)).toContain(b);
        const scb = await store.listVerifyTransactions({ accountId: a, sendingBank: '014', limit: 50 });
        expect(scb.items.every((r) => r.sendingBank === '014')).toBe(true);
        expect(scb.items.length).toBe(10);

        await store.insertRequestError(failure(a, id('req'), { kind: 'invalid_qr', createdAt: new Date(base) }));
        await store.insertRequestError(failure(a, id('req'), { kind: 'upstream_timeout', createdAt: new Date(base + 1000) }));
        await store.insertRequestError(failure(null, id('req'), { kind: 'invalid_api_key', createdAt: new Date(base + 2000) }));
        const timeouts = await store.listRequestErrors({ accountId: a, kind: 'upstream_timeout', limit: 10 });
        expect(timeouts.items.map((r) => r.kind)).toEqual(['upstream_timeout']);
        expect((await store.listRequestErrors({ accountId: a, limit: 10 })).items).toHaveLength(2);

        // A refused slip is found by its transaction and bank, a request by its id.
        const refused = failure(b, id('req'), { requestId: 'req-refused', transactionId: 'TX-FAKE', sendingBank: '014', kind: 'slip_not_found', createdAt: new Date(base + 3000) });
        await store.insertRequestError(refused);
        await store.insertRequestError(failure(b, id('req'), { transactionId: 'TX-FAKE', sendingBank: '004', kind: 'slip_not_found', createdAt: new Date(base + 4000) }));
        const bySlip = await store.listRequestErrors({ transactionId: 'TX-FAKE', sendingBank: '014', limit: 10 });
        expect(bySlip.items).toEqual([refused]);
        expect((await store.listRequestErrors({ transactionId: 'TX-FAKE', limit: 10 })).items).toHaveLength(2);
        expect((await store.listRequestErrors({ requestId: 'req-refused', limit: 10 })).items.map((r) => r.id)).toEqual([refused.id]);
        const byRequest = await store.listVerifyTransactions({ requestId: (await store.listVerifyTransactions({ transactionId: 'TX-7', limit: 1 })).items[0]!.requestId, limit: 10 });
        expect(byRequest.items.map((r) => r.transactionId)).toEqual(['TX-7']);

        const usage = await store.usage({ accountId: a });
        expect(usage).toEqual([{ accountId: a, day: '2026-03-01', successes: 20, failures: { invalid_qr: 1, upstream_timeout: 1 } }]);
      });

      it('counts usage per Bangkok day (UTC+7)', async () => {
        const a = await account();
        // 2026-04-01T17:30Z is already 2 April in Bangkok.
        await store.insertRequestError(failure(a, id('req'), { kind: 'invalid_qr', createdAt: at('2026-04-01T16:59:00Z') }));
        await store.insertRequestError(failure(a, id('req'), { kind: 'invalid_qr', createdAt: at('2026-04-01T17:30:00Z') }));
        const usage = await store.usage({ accountId: a });
        expect(usage.map((u) => [u.day, u.failures.invalid_qr])).toEqual([
          ['2026-04-01', 1],
          ['2026-04-02', 1],
        ]);
      });
    });

    describe('admin tokens and events', () => {
      it('stores tokens by hash, revokes them, and pages events by target', async () => {
        const hash = randomUUID().replaceAll('-', '').padEnd(64, 'f');
        const token = { id: id('adm'), name: 'ops', role: 'support' as const, prefix: 'sgadm_AbCd1234', hash, createdAt: new Date(), lastUsedAt: null, revokedAt: null };
        await store.createAdminToken(token);
        expect(await store.findAdminTokenByHash(hash)).toMatchObject({ id: token.id, name: 'ops', role: 'support', revokedAt: null });
        expect((await store.listAdminTokens()).map((t) => t.id)).toContain(token.id);
        expect(await store.revokeAdminToken(token.id, new Date())).toBe(true);
        expect(await store.revokeAdminToken(token.id, new Date())).toBe(false);
        expect((await store.findAdminTokenByHash(hash))?.revokedAt).toBeInstanceOf(Date);
        await expect(store.createAdminToken({ ...token, id: id('adm') })).rejects.toMatchObject({ code: 'conflict' });

        const target = id('acc');
        const base = Date.parse('2026-05-01T00:00:00Z');
        for (let i = 0; i < 5; i++) {
          await store.insertAdminEvent({ id: id('evt'), actor: 'admin:ops', action: 'topUpCredits', targetId: target, reason: `r${i}`, details: { credits: i, nested: { th: 'เติม' } }, createdAt: new Date(base + i * 1000) });
        }
        await store.insertAdminEvent({ id: id('evt'), actor: 'admin:ops', action: 'createAccount', targetId: id('acc'), reason: null, details: {}, createdAt: new Date(base) });
        // The same id again (a retried action) keeps the first event and adds none.
        const once = { id: id('evt'), actor: 'admin:first', action: 'adjustCredits', targetId: target, reason: 'r5', details: {}, createdAt: new Date(base + 5000) };
        await store.insertAdminEvent(once);
        await store.insertAdminEvent({ ...once, actor: 'admin:second', reason: 'again', createdAt: new Date(base + 6000) });
        const latest = await store.listAdminEvents({ targetId: target, limit: 10 });
        expect(latest.items.filter((e) => e.id === once.id)).toEqual([once]);
        expect(latest.items).toHaveLength(6);
        const first = await store.listAdminEvents({ targetId: target, limit: 3 });
        const rest = await store.listAdminEvents({ targetId: target, limit: 3, after: first.next });
        expect([...first.items, ...rest.items].map((e) => e.reason)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
        expect(rest.next).toBeNull();
        expect(first.items[1]).toMatchObject({ actor: 'admin:ops', action: 'topUpCredits', details: { credits: 4, nested: { th: 'เติม' } } });
      });
    });

    webhookContract({ store: () => store, probe: () => probe, account, hold, vt, concurrency });
    paymentContract({ store: () => store, account, concurrency });
    paymentResolveContract({ store: () => store, probe: () => probe, account, concurrency });
    creditsLowContract({ store: () => store, probe: () => probe, account, concurrency });
    lineContract({ store: () => store, probe: () => probe, account, hold, vt, failure });
    recheckContract({ store: () => store, probe: () => probe, account, hold, vt });

    it('answers a ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
