// The webhook part of the store contract (contract.ts calls it inside its
// describe, so every engine runs it): endpoints, the outbox written by the
// settle itself, claims that never hand one delivery to two callers, and
// attempts recorded only under the claim that holds the delivery.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { CreditHold, VerifyTransactionRecord } from '../../src/domain/types.js';
import type { NewWebhookDelivery, WebhookEndpoint } from '../../src/domain/webhooks/types.js';
import type { CaseFn } from '../helpers/skipped-guarantees.js';

/** What the probe reads of webhooks through the engine's own driver. */
export interface WebhookProbe {
  /** Ids of every delivery record stored for the account (MongoDB: moved or still in an outbox), sorted. */
  webhookDeliveryIds(accountId: string): Promise<string[]>;
  /** The endpoint's stored secret column/field as it is on disk. */
  storedWebhookSecret(endpointId: string): Promise<string | null>;
}

interface Fixtures {
  store: () => Store;
  probe: () => WebhookProbe;
  account: (credits?: number) => Promise<string>;
  hold: (accountId: string) => CreditHold;
  vt: (accountId: string, holdId: string) => VerifyTransactionRecord;
  concurrency: CaseFn;
}

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const sorted = (ids: Iterable<string>) => [...ids].sort();

function endpoint(accountId: string, over: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return { id: id('whe'), accountId, url: 'https://shop.example/hooks', events: ['verification.succeeded'], sealedSecret: 'plain:whsec_test', createdAt: new Date(), removedAt: null, ...over };
}

function delivery(accountId: string, endpointId: string, createdAt = new Date(), eventId = id('evt')): NewWebhookDelivery {
  const body = JSON.stringify({ id: eventId, type: 'verification.succeeded', createdAt: createdAt.toISOString(), data: { n: 1, th: 'สลิป' } });
  return { id: id('whd'), eventId, endpointId, accountId, type: 'verification.succeeded', body, createdAt };
}

export function webhookContract(f: Fixtures): void {
  describe('webhooks', () => {
    /** A settled verification with `n` deliveries, created `agoMs` before now, written under `lease` when given. */
    async function settledWith(n: number, agoMs = 1000, lease?: NewWebhookDelivery['lease']) {
      const store = f.store();
      const accountId = await f.account(1);
      const e = endpoint(accountId);
      await store.createWebhookEndpoint(e);
      const h = f.hold(accountId);
      await store.holdCredit(h);
      const at = new Date(Date.now() - agoMs);
      const ds = Array.from({ length: n }, (_, i) => ({ ...delivery(accountId, e.id, new Date(at.getTime() + i)), ...(lease ? { lease } : {}) }));
      await store.settleHold(f.vt(accountId, h.id), ds);
      return { accountId, endpoint: e, deliveries: ds };
    }

    it('registers, lists and removes endpoints; the secret is stored as sealed, never rewritten', async () => {
      const store = f.store();
      const accountId = await f.account();
      const first = endpoint(accountId, { createdAt: new Date(Date.now() - 1000), sealedSecret: 'aesgcm1:iv:tag:sealed' });
      const second = endpoint(accountId, { url: 'http://127.0.0.1:9/x' });
      await store.createWebhookEndpoint(first);
      await store.createWebhookEndpoint(second);
      await store.createWebhookEndpoint(endpoint(await f.account()));
      expect(await f.probe().storedWebhookSecret(first.id)).toBe('aesgcm1:iv:tag:sealed');
      expect(await store.listWebhookEndpoints(accountId)).toEqual([first, second]);
      expect(await store.removeWebhookEndpoint(first.id, new Date())).toBe(true);
      expect(await store.removeWebhookEndpoint(first.id, new Date())).toBe(false);
      expect(await store.removeWebhookEndpoint('whe_missing', new Date())).toBe(false);
      expect((await store.listWebhookEndpoints(accountId)).map((e) => e.id)).toEqual([second.id]);
      expect((await store.getWebhookEndpoint(first.id))?.removedAt).toBeInstanceOf(Date);
      expect(await store.getWebhookEndpoint('whe_missing')).toBeNull();
      await expect(store.createWebhookEndpoint(second)).rejects.toMatchObject({ code: 'conflict' });
    });

    it('writes the deliveries with the settle, and none when the settle fails', async () => {
      const store = f.store();
      const { accountId, deliveries } = await settledWith(2);
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual(sorted(deliveries.map((d) => d.id)));
      // A settle whose hold is gone charges nothing and writes no event.
      const lost = delivery(accountId, 'whe_x');
      await expect(store.settleHold(f.vt(accountId, 'req_gone'), [lost])).rejects.toMatchObject({ code: 'conflict' });
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual(sorted(deliveries.map((d) => d.id)));
      // A settle without listeners writes none.
      const quiet = await f.account(1);
      const h = f.hold(quiet);
      await store.holdCredit(h);
      await store.settleHold(f.vt(quiet, h.id));
      expect(await f.probe().webhookDeliveryIds(quiet)).toEqual([]);
    });

    it('claims a due delivery once per lease, records attempts under the claim only, and redelivers on demand', async () => {
      const store = f.store();
      const { deliveries } = await settledWith(1);
      const d = deliveries[0]!;
      const now = new Date();
      const mine = (await store.claimWebhookDeliveries({ claim: 'c1', now, leaseMs: 60_000, limit: 1000 })).filter((x) => x.id === d.id);
      expect(mine).toEqual([{ ...d, state: 'pending', nextAttemptAt: d.createdAt, attempts: [], deliveredAt: null }]);
      // Held by c1: nobody else gets it while the lease lasts, and c2 cannot record on it.
      const again = await store.claimWebhookDeliveries({ claim: 'c2', now, leaseMs: 60_000, limit: 1000 });
      expect(again.map((x) => x.id)).not.toContain(d.id);
      const attempt = { at: now, statusCode: 500, error: 'HTTP 500', durationMs: 12 };
      const retryAt = new Date(now.getTime() + 30_000);
      expect(await store.finishWebhookAttempt(d.id, 'c2', attempt, { state: 'pending', nextAttemptAt: retryAt })).toBe(false);
      expect(await store.finishWebhookAttempt(d.id, 'c1', attempt, { state: 'pending', nextAttemptAt: retryAt })).toBe(true);
      // Recorded and released: not due before its retry time, due after it.
      expect((await store.claimWebhookDeliveries({ claim: 'c3', now, leaseMs: 60_000, limit: 1000 })).map((x) => x.id)).not.toContain(d.id);
      const later = new Date(retryAt.getTime() + 1);
      const retried = (await store.claimWebhookDeliveries({ claim: 'c4', now: later, leaseMs: 1000, limit: 1000 })).find((x) => x.id === d.id);
      expect(retried?.attempts).toEqual([attempt]);
      // The lease ran out (c4 died): another caller claims it, and c4's late answer is not recorded.
      const afterLease = new Date(later.getTime() + 1000);
      expect((await store.claimWebhookDeliveries({ claim: 'c5', now: afterLease, leaseMs: 60_000, limit: 1000 })).map((x) => x.id)).toContain(d.id);
      const ok = { at: afterLease, statusCode: 204, error: null, durationMs: 3 };
      expect(await store.finishWebhookAttempt(d.id, 'c4', ok, { state: 'delivered' })).toBe(false);
      expect(await store.finishWebhookAttempt(d.id, 'c5', ok, { state: 'delivered' })).toBe(true);
      expect(await store.getWebhookDelivery(d.id)).toMatchObject({ state: 'delivered', deliveredAt: afterLease, attempts: [attempt, ok] });
      const farLater = new Date(afterLease.getTime() + 86_400_000);
      expect((await store.claimWebhookDeliveries({ claim: 'c6', now: farLater, leaseMs: 1000, limit: 1000 })).map((x) => x.id)).not.toContain(d.id);
      // Redelivered: pending and due at once, its attempts kept.
      expect(await store.redeliverWebhook(d.id, farLater)).toBe(true);
      expect(await store.redeliverWebhook('whd_missing', farLater)).toBe(false);
      const redelivered = (await store.claimWebhookDeliveries({ claim: 'c7', now: farLater, leaseMs: 1000, limit: 1000 })).find((x) => x.id === d.id);
      expect(redelivered).toMatchObject({ state: 'pending', attempts: [attempt, ok] });
    });

    it('writes a delivery given a lease claimed under it: nobody claims it before the lease ends, its holder records on it (MongoDB: written unclaimed)', async () => {
      const store = f.store();
      const now = new Date();
      const lease = { claim: 'lease-holder', until: new Date(now.getTime() + 60_000) };
      const d = (await settledWith(1, 1000, lease)).deliveries[0]!;
      const claimedNow = (await store.claimWebhookDeliveries({ claim: 'other', now, leaseMs: 60_000, limit: 1000 })).map((x) => x.id);
      const ok = { at: now, statusCode: 204, error: null, durationMs: 2 };
      if (!store.leasesOutbox) {
        // The lease is not written: the delivery is claimed as any other.
        expect(claimedNow).toContain(d.id);
        expect(await store.finishWebhookAttempt(d.id, 'lease-holder', ok, { state: 'delivered' })).toBe(false);
        return;
      }
      expect(claimedNow).not.toContain(d.id);
      // Its lease ended (the holder died before sending): claimed like any other, and the holder's late answer is not recorded.
      const afterLease = new Date(lease.until.getTime() + 1);
      expect((await store.claimWebhookDeliveries({ claim: 'after', now: afterLease, leaseMs: 60_000, limit: 1000 })).map((x) => x.id)).toContain(d.id);
      expect(await store.finishWebhookAttempt(d.id, 'lease-holder', ok, { state: 'delivered' })).toBe(false);
      expect(await store.finishWebhookAttempt(d.id, 'after', ok, { state: 'delivered' })).toBe(true);
      expect(await store.getWebhookDelivery(d.id)).toMatchObject({ state: 'delivered', attempts: [ok] });

      // A holder that sends in time records under its lease, with no claim made.
      const d2 = (await settledWith(1, 0, lease)).deliveries[0]!;
      expect(await store.finishWebhookAttempt(d2.id, 'lease-holder', ok, { state: 'delivered' })).toBe(true);
      expect(await store.getWebhookDelivery(d2.id)).toMatchObject({ state: 'delivered', deliveredAt: now, attempts: [ok] });
    });

    f.concurrency('two callers claiming at once never get the same delivery', async () => {
      const store = f.store();
      const { deliveries } = await settledWith(20, 2000);
      const now = new Date();
      const [a, b] = await Promise.all(['ca', 'cb'].map((claim) => store.claimWebhookDeliveries({ claim, now, leaseMs: 60_000, limit: 1000 })));
      const ours = new Set(deliveries.map((d) => d.id));
      const aIds = a!.map((d) => d.id).filter((x) => ours.has(x));
      const bIds = b!.map((d) => d.id).filter((x) => ours.has(x));
      expect(aIds.filter((x) => bIds.includes(x))).toEqual([]);
      expect(sorted([...aIds, ...bIds])).toEqual(sorted(ours));
    });

    it('pages deliveries by account and by endpoint, newest first', async () => {
      const store = f.store();
      const { accountId, endpoint: e, deliveries } = await settledWith(5);
      const newestFirst = [...deliveries].reverse().map((d) => d.id);
      const first = await store.listWebhookDeliveries({ accountId, limit: 3 });
      const rest = await store.listWebhookDeliveries({ accountId, limit: 3, after: first.next });
      expect([...first.items, ...rest.items].map((d) => d.id)).toEqual(newestFirst);
      expect(rest.next).toBeNull();
      expect((await store.listWebhookDeliveries({ endpointId: e.id, limit: 10 })).items.map((d) => d.id)).toEqual(newestFirst);
      expect(first.items[0]).toMatchObject({ state: 'pending', body: deliveries[4]!.body, eventId: deliveries[4]!.eventId });
    });

    it('deletes finished deliveries (delivered, failed) that finished before the cutoff, in batches from a cursor; never a pending, retrying or redelivered one', async () => {
      const store = f.store();
      // Finish times in 2001: no other case of the suite has deliveries finished that long ago.
      const y2001 = (month: number) => new Date(Date.UTC(2001, month, 1));
      const cutoff = y2001(6);
      const { accountId, deliveries: ds } = await settledWith(7, 2000);
      type D = NewWebhookDelivery;
      const [delivered, failed, tiedDelivered, retrying, untouched, recent, redelivered] = ds as [D, D, D, D, D, D, D];
      const claim = 'prune';
      const claimed = (await store.claimWebhookDeliveries({ claim, now: new Date(), leaseMs: 60_000, limit: 1000 })).map((d) => d.id);
      expect(claimed).toEqual(expect.arrayContaining(ds.map((d) => d.id)));
      const attempt = (at: Date, statusCode: number | null) => ({ at, statusCode, error: statusCode === 200 ? null : 'HTTP 500', durationMs: 3 });
      const finish = (d: NewWebhookDelivery, at: Date, next: Parameters<Store['finishWebhookAttempt']>[3]) => store.finishWebhookAttempt(d.id, claim, attempt(at, next.state === 'delivered' ? 200 : 500), next);
      expect(await finish(delivered, y2001(1), { state: 'delivered' })).toBe(true);
      expect(await finish(failed, y2001(2), { state: 'failed' })).toBe(true);
      expect(await finish(tiedDelivered, y2001(2), { state: 'delivered' })).toBe(true);
      // Attempted long ago and still retrying: no finish time.
      expect(await finish(retrying, y2001(0), { state: 'pending', nextAttemptAt: new Date(Date.now() + 3_600_000) })).toBe(true);
      expect(await finish(recent, y2001(8), { state: 'delivered' })).toBe(true);
      expect(await finish(redelivered, y2001(0), { state: 'delivered' })).toBe(true);
      expect(await store.redeliverWebhook(redelivered.id, new Date())).toBe(true);

      // Oldest finished first, one at a time; the two finished at the same instant in id order.
      const [tieFirst, tieSecond] = [failed, tiedDelivered].sort((a, b) => (a.id < b.id ? -1 : 1)) as [NewWebhookDelivery, NewWebhookDelivery];
      const first = await store.deleteFinishedWebhookDeliveries(cutoff, { limit: 1, after: null });
      expect(first).toEqual({ changed: 1, last: { createdAt: y2001(1), id: delivered.id } });
      const second = await store.deleteFinishedWebhookDeliveries(cutoff, { limit: 1, after: first.last });
      expect(second).toEqual({ changed: 1, last: { createdAt: y2001(2), id: tieFirst.id } });
      const third = await store.deleteFinishedWebhookDeliveries(cutoff, { limit: 5, after: second.last });
      expect(third).toEqual({ changed: 1, last: { createdAt: y2001(2), id: tieSecond.id } });
      expect(await store.deleteFinishedWebhookDeliveries(cutoff, { limit: 5, after: third.last })).toEqual({ changed: 0, last: null });
      expect(await store.deleteFinishedWebhookDeliveries(cutoff, { limit: 5, after: null })).toEqual({ changed: 0, last: null });

      // As the engine's own driver sees it: the rows are gone; pending, retrying, redelivered and recent ones stay, whole.
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual(sorted([retrying, untouched, recent, redelivered].map((d) => d.id)));
      expect(await store.getWebhookDelivery(delivered.id)).toBeNull();
      expect(await store.getWebhookDelivery(retrying.id)).toMatchObject({ state: 'pending', attempts: [expect.objectContaining({ statusCode: 500 })] });
      expect(await store.getWebhookDelivery(redelivered.id)).toMatchObject({ state: 'pending', deliveredAt: y2001(0) });
      expect(await store.getWebhookDelivery(untouched.id)).toMatchObject({ state: 'pending', attempts: [] });

      // The redelivered one finishes again now: it counts from then, not from its first finish.
      const again = new Date();
      expect((await store.claimWebhookDeliveries({ claim: 'again', now: again, leaseMs: 60_000, limit: 1000 })).map((d) => d.id)).toContain(redelivered.id);
      expect(await store.finishWebhookAttempt(redelivered.id, 'again', attempt(again, 200), { state: 'delivered' })).toBe(true);
      expect(await store.deleteFinishedWebhookDeliveries(y2001(10), { limit: 10, after: null })).toEqual({ changed: 1, last: { createdAt: y2001(8), id: recent.id } });
      expect(await f.probe().webhookDeliveryIds(accountId)).toEqual(sorted([retrying, untouched, redelivered].map((d) => d.id)));
    });
  });
}
