// The LINE part of the store contract (contract.ts calls it inside its
// describe, so every engine runs it): channels by LINE's channel id with
// their secrets stored as given (sealed by the domain), event claims that
// let one process take an event once, and the LINE user on audit records.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LineChannel } from '../../src/domain/line/types.js';
import type { Store } from '../../src/domain/ports/store.js';
import { redactPersonalData } from '../../src/domain/personal-data/redaction.js';
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../../src/domain/types.js';

/** What the probe reads of LINE channels through the engine's own driver. */
export interface LineProbe {
  /** The channel's stored secret and access token as they are on disk; null when there is no such channel. */
  storedLineSecrets(channelId: string): Promise<{ secret: string; accessToken: string } | null>;
}

interface Fixtures {
  store: () => Store;
  probe: () => LineProbe;
  account: (credits?: number) => Promise<string>;
  hold: (accountId: string) => CreditHold;
  vt: (accountId: string, holdId: string, over?: Partial<VerifyTransactionRecord>) => VerifyTransactionRecord;
  failure: (accountId: string | null, holdId: string, over?: Partial<RequestErrorRecord>) => RequestErrorRecord;
}

const channelId = () => String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));

function channel(accountId: string, over: Partial<LineChannel> = {}): LineChannel {
  return {
    channelId: channelId(),
    accountId,
    sealedSecret: 'aesgcm1:iv:tag:secret',
    sealedToken: 'aesgcm1:iv:tag:token',
    lang: 'th',
    checks: true,
    matchPaymentRequests: false,
    hints: false,
    createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    ...over,
  };
}

export function lineContract(f: Fixtures): void {
  describe('line channels', () => {
    it('connects, reads, lists and disconnects channels; secrets are stored as given', async () => {
      const store = f.store();
      const accountId = await f.account();
      const first = channel(accountId, { createdAt: new Date(Date.now() - 60_000), lang: 'en', checks: false, matchPaymentRequests: true });
      const second = channel(accountId);
      const elsewhere = channel(await f.account());
      for (const c of [first, second, elsewhere]) await store.createLineChannel(c);
      expect(await f.probe().storedLineSecrets(first.channelId)).toEqual({ secret: first.sealedSecret, accessToken: first.sealedToken });
      expect(await store.getLineChannel(first.channelId)).toEqual(first);
      expect(await store.listLineChannels(accountId)).toEqual([first, second]);
      expect((await store.listLineChannels()).map((c) => c.channelId)).toEqual(expect.arrayContaining([first.channelId, second.channelId, elsewhere.channelId]));
      expect(await store.deleteLineChannel(first.channelId)).toBe(true);
      expect(await store.deleteLineChannel(first.channelId)).toBe(false);
      expect(await store.getLineChannel(first.channelId)).toBeNull();
      expect(await f.probe().storedLineSecrets(first.channelId)).toBeNull();
      expect(await store.listLineChannels(accountId)).toEqual([second]);
    });

    it('turns a channel\'s hints on and off, a channel not connected answering null', async () => {
      const store = f.store();
      const c = channel(await f.account(), { hints: true });
      await store.createLineChannel(c);
      expect(await store.getLineChannel(c.channelId)).toEqual(c);
      expect(await store.setLineChannelHints(c.channelId, false)).toEqual({ ...c, hints: false });
      expect(await store.getLineChannel(c.channelId)).toEqual({ ...c, hints: false });
      expect(await store.setLineChannelHints(channelId(), true)).toBeNull();
    });

    it('keeps staff targets and groups per channel (join, leave, join again), oldest first; disconnecting removes them', async () => {
      const store = f.store();
      const c = channel(await f.account());
      const other = channel(await f.account());
      for (const x of [c, other]) await store.createLineChannel(x);
      const t0 = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const t1 = new Date(t0.getTime() + 10_000);
      const t2 = new Date(t0.getTime() + 20_000);
      const user = 'U' + 'a'.repeat(32);
      const group = 'C' + 'b'.repeat(32);
      expect(await store.addLineStaffTarget({ channelId: c.channelId, targetId: group, createdAt: t1 })).toBe(true);
      expect(await store.addLineStaffTarget({ channelId: c.channelId, targetId: user, createdAt: t0 })).toBe(true);
      expect(await store.addLineStaffTarget({ channelId: c.channelId, targetId: user, createdAt: t2 })).toBe(false);
      expect(await store.addLineStaffTarget({ channelId: other.channelId, targetId: user, createdAt: t0 })).toBe(true);
      expect(await store.listLineStaffTargets(c.channelId)).toEqual([
        { channelId: c.channelId, targetId: user, createdAt: t0 },
        { channelId: c.channelId, targetId: group, createdAt: t1 },
      ]);
      expect(await store.removeLineStaffTarget(c.channelId, user)).toBe(true);
      expect(await store.removeLineStaffTarget(c.channelId, user)).toBe(false);
      expect((await store.listLineStaffTargets(c.channelId)).map((t) => t.targetId)).toEqual([group]);

      const room = 'R' + 'c'.repeat(32);
      await store.recordLineGroup({ channelId: c.channelId, groupId: group, kind: 'group', at: t0, present: true });
      await store.recordLineGroup({ channelId: c.channelId, groupId: room, kind: 'room', at: t1, present: true });
      await store.recordLineGroup({ channelId: c.channelId, groupId: room, kind: 'room', at: t2, present: false });
      expect(await store.listLineGroups(c.channelId)).toEqual([
        { channelId: c.channelId, groupId: group, kind: 'group', joinedAt: t0, leftAt: null },
        { channelId: c.channelId, groupId: room, kind: 'room', joinedAt: t1, leftAt: t2 },
      ]);
      await store.recordLineGroup({ channelId: c.channelId, groupId: room, kind: 'room', at: t2, present: true });
      expect((await store.listLineGroups(c.channelId))[1]).toEqual({ channelId: c.channelId, groupId: room, kind: 'room', joinedAt: t2, leftAt: null });
      expect(await store.listLineGroups(other.channelId)).toEqual([]);

      expect(await store.deleteLineChannel(c.channelId)).toBe(true);
      expect(await store.listLineStaffTargets(c.channelId)).toEqual([]);
      expect(await store.listLineGroups(c.channelId)).toEqual([]);
      expect(await store.listLineStaffTargets(other.channelId)).toHaveLength(1);
    });

    it('refuses a channel id connected already and an unknown account, leaving the first as it was', async () => {
      const store = f.store();
      const c = channel(await f.account());
      await store.createLineChannel(c);
      await expect(store.createLineChannel({ ...c, accountId: await f.account(), sealedSecret: 'plain:other' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(store.createLineChannel(channel('acc_missing'))).rejects.toMatchObject({ code: 'conflict' });
      expect(await store.getLineChannel(c.channelId)).toEqual(c);
    });

    it('claims a webhook event once per channel, the same event id on another channel apart', async () => {
      const store = f.store();
      const eventId = `01H${randomUUID().replaceAll('-', '').toUpperCase()}`;
      const [a, b] = [channelId(), channelId()];
      expect(await store.claimLineEvent({ channelId: a, eventId, at: new Date() })).toBe(true);
      expect(await store.claimLineEvent({ channelId: a, eventId, at: new Date() })).toBe(false);
      expect(await store.claimLineEvent({ channelId: b, eventId, at: new Date() })).toBe(true);
    });

    it('forgets event claims older than a given time, and only those', async () => {
      const store = f.store();
      const channel = channelId();
      const old = { channelId: channel, eventId: randomUUID(), at: new Date(Date.now() - 8 * 86_400_000) };
      const recent = { channelId: channel, eventId: randomUUID(), at: new Date() };
      await store.claimLineEvent(old);
      await store.claimLineEvent(recent);
      expect(await store.pruneLineEvents(new Date(Date.now() - 7 * 86_400_000))).toBeGreaterThanOrEqual(1);
      expect(await store.claimLineEvent(old)).toBe(true);
      expect(await store.claimLineEvent(recent)).toBe(false);
    });

    // A unique key, not a read-then-write: FerretDB holds to it too, so every engine runs this.
    it('gives one of many simultaneous claims of an event to exactly one caller', async () => {
      const store = f.store();
      const claim = { channelId: channelId(), eventId: randomUUID(), at: new Date() };
      const results = await Promise.all(Array.from({ length: 8 }, () => store.claimLineEvent(claim)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('keeps the LINE user on verification and failure records; redaction removes it', async () => {
      const store = f.store();
      const accountId = await f.account(1);
      const h = f.hold(accountId);
      await store.holdCredit(h);
      await store.settleHold(f.vt(accountId, h.id, { keyId: 'line:1234567890', source: 'line', lineUserId: 'U4af4980629' }));
      await store.insertRequestError(f.failure(accountId, `req_${randomUUID()}`, { keyId: 'line:1234567890', lineUserId: 'U4af4980630' }));
      const [vt] = (await store.listVerifyTransactions({ accountId, limit: 10 })).items;
      expect(vt).toMatchObject({ source: 'line', keyId: 'line:1234567890', lineUserId: 'U4af4980629' });
      expect((await store.listRequestErrors({ accountId, limit: 10 })).items[0]).toMatchObject({ keyId: 'line:1234567890', lineUserId: 'U4af4980630' });
      await store.redactVerifyTransactions({ accountId }, redactPersonalData, new Date(), { limit: 10, after: null });
      const [redacted] = (await store.listVerifyTransactions({ accountId, limit: 10 })).items;
      expect(redacted?.lineUserId).toBeUndefined();
      expect(redacted).toMatchObject({ source: 'line', keyId: 'line:1234567890' });
    });
  });
}
