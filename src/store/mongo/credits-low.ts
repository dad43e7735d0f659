// account.credits_low on MongoDB (domain/credits-low.ts). The announce-once
// flag is flipped by a conditional update of the account document (one
// caller wins a fall, whatever runs elsewhere); the deliveries are inserted
// right after it, so a crash between the two loses that event (at most once
// here; the SQL engines write both in one transaction).
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { isDuplicateKey, mapped } from './connection.js';
import { rawAccounts, type Models } from './schemas.js';
import { outboxFields } from './webhooks.js';

export async function creditsLowAt(m: Models, accountId: string): Promise<number | null> {
  return mapped(async () => (await rawAccounts(m).findOne({ _id: accountId }, { projection: { creditsLowAt: 1 } }))?.creditsLowAt ?? null);
}

export async function setCreditsLowAt(m: Models, accountId: string, threshold: number | null): Promise<boolean> {
  return mapped(async () => (await rawAccounts(m).updateOne({ _id: accountId, deletedAt: null }, { $set: { creditsLowAt: threshold, creditsLowNotified: false } })).matchedCount === 1);
}

export async function settleCreditsLow(m: Models, accountId: string, announce: (credits: number, threshold: number) => readonly NewWebhookDelivery[]): Promise<'fell' | 'rearmed' | 'none'> {
  return mapped(async () => {
    const a = await rawAccounts(m).findOne({ _id: accountId, deletedAt: null }, { projection: { credits: 1, creditsLowAt: 1, creditsLowNotified: 1 } });
    const at = a?.creditsLowAt;
    if (!a || at === null || at === undefined) return 'none';
    const notified = a.creditsLowNotified === true;
    if (a.credits < at && !notified) {
      const won = await rawAccounts(m).updateOne({ _id: accountId, creditsLowAt: at, credits: { $lt: at }, creditsLowNotified: { $ne: true } }, { $set: { creditsLowNotified: true } });
      if (won.modifiedCount !== 1) return 'none';
      for (const d of outboxFields(announce(a.credits, at)).outbox ?? []) {
        try {
          await m.webhookDeliveries.collection.insertOne(d as never);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return 'fell';
    }
    if (a.credits >= at && notified) {
      const won = await rawAccounts(m).updateOne({ _id: accountId, creditsLowAt: at, credits: { $gte: at }, creditsLowNotified: true }, { $set: { creditsLowNotified: false } });
      return won.modifiedCount === 1 ? 'rearmed' : 'none';
    }
    return 'none';
  });
}
