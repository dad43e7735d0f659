// account.credits_low in the store contract (contract.ts calls it inside its
// describe, so every engine runs it): the threshold, and the fall announced
// once with its deliveries in the same write, re-armed after a rise; read
// back through each engine's own driver (the probe).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { NewWebhookDelivery } from '../../src/domain/webhooks/types.js';
import type { CaseFn } from '../helpers/skipped-guarantees.js';
import { fundAccount } from '../helpers/pay-by-settle.js';

/** Reads through the engine's own driver. */
export interface CreditsLowProbe {
  /** The stored threshold and announce-once flag; null for no such account. */
  storedCreditsLow(accountId: string): Promise<{ at: number | null; notified: boolean } | null>;
}

interface Fixtures {
  store: () => Store;
  probe: () => CreditsLowProbe;
  account: (credits?: number) => Promise<string>;
  concurrency: CaseFn;
}

/** One credits_low delivery per fall, as the domain builds it; `seen` collects what the store handed in. */
function announce(accountId: string, seen: [number, number][] = []) {
  return (credits: number, threshold: number): NewWebhookDelivery[] => {
    seen.push([credits, threshold]);
    const eventId = `evt_low_${accountId}_${seen.length}_${Math.random().toString(36).slice(2)}`;
    const body = JSON.stringify({ id: eventId, type: 'account.credits_low', data: { accountId, credits, creditsLowAt: threshold } });
    return [{ id: `whd_${eventId}`, eventId, endpointId: 'whe_low', accountId, type: 'account.credits_low', body, createdAt: new Date() }];
  };
}

async function lowEvents(store: Store, accountId: string): Promise<unknown[]> {
  const deliveries = (await store.listWebhookDeliveries({ accountId, limit: 100 })).items.filter((d) => d.type === 'account.credits_low');
  return deliveries.map((d) => JSON.parse(d.body).data).reverse();
}

export function creditsLowContract(f: Fixtures): void {
  describe('account.credits_low', () => {
    it('keeps a threshold per account, off by default; a new one re-arms', async () => {
      const accountId = await f.account(5);
      expect(await f.store().creditsLowAt(accountId)).toBeNull();
      expect(await f.probe().storedCreditsLow(accountId)).toEqual({ at: null, notified: false });
      expect(await f.store().setCreditsLowAt(accountId, 10)).toBe(true);
      expect(await f.store().creditsLowAt(accountId)).toBe(10);
      expect(await f.store().settleCreditsLow(accountId, announce(accountId))).toBe('fell');
      expect(await f.probe().storedCreditsLow(accountId)).toEqual({ at: 10, notified: true });
      expect(await f.store().setCreditsLowAt(accountId, 20)).toBe(true);
      expect(await f.probe().storedCreditsLow(accountId)).toEqual({ at: 20, notified: false });
      expect(await f.store().setCreditsLowAt(accountId, null)).toBe(true);
      expect(await f.store().settleCreditsLow(accountId, announce(accountId))).toBe('none');
      expect(await f.store().setCreditsLowAt('acc_missing', 3)).toBe(false);
      expect(await f.store().creditsLowAt('acc_missing')).toBeNull();
    });

    it('announces a fall once with its deliveries in the same write, and again only after a rise re-armed it', async () => {
      const accountId = await f.account(5);
      await f.store().setCreditsLowAt(accountId, 3);
      const seen: [number, number][] = [];
      expect(await f.store().settleCreditsLow(accountId, announce(accountId, seen))).toBe('none');
      await fundAccount(f.store(), accountId, -3);
      expect(await f.store().settleCreditsLow(accountId, announce(accountId, seen))).toBe('fell');
      expect(await f.store().settleCreditsLow(accountId, announce(accountId, seen))).toBe('none');
      expect(seen).toEqual([[2, 3]]);
      expect(await lowEvents(f.store(), accountId)).toEqual([{ accountId, credits: 2, creditsLowAt: 3 }]);
      expect(await f.probe().storedCreditsLow(accountId)).toEqual({ at: 3, notified: true });

      await fundAccount(f.store(), accountId, 1);
      expect(await f.store().settleCreditsLow(accountId, announce(accountId, seen))).toBe('rearmed');
      expect(await f.probe().storedCreditsLow(accountId)).toEqual({ at: 3, notified: false });
      await fundAccount(f.store(), accountId, -2);
      expect(await f.store().settleCreditsLow(accountId, announce(accountId, seen))).toBe('fell');
      expect(await lowEvents(f.store(), accountId)).toEqual([
        { accountId, credits: 2, creditsLowAt: 3 },
        { accountId, credits: 1, creditsLowAt: 3 },
      ]);
    });

    f.concurrency('one fall settled by many callers at once is announced once', async () => {
      const accountId = await f.account(2);
      await f.store().setCreditsLowAt(accountId, 5);
      const results = await Promise.all(Array.from({ length: 8 }, () => f.store().settleCreditsLow(accountId, announce(accountId))));
      expect(results.filter((r) => r === 'fell')).toHaveLength(1);
      expect(await lowEvents(f.store(), accountId)).toHaveLength(1);
    });
  });
}
