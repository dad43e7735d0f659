// account.credits_low on SQLite (domain/credits-low.ts): the threshold, and
// its announce-once flag flipped with the event's deliveries in one
// IMMEDIATE transaction.
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { deliveryValues } from '../sql/webhooks.js';
import type { Lite } from './connection.js';

const ms = (at: Date) => at.getTime();

export async function creditsLowAt(lite: Lite, accountId: string): Promise<number | null> {
  return (lite.sql('SELECT credits_low_at AS at FROM accounts WHERE id = ?').get(accountId) as { at: number | null } | undefined)?.at ?? null;
}

export async function setCreditsLowAt(lite: Lite, accountId: string, threshold: number | null): Promise<boolean> {
  return lite.sql('UPDATE accounts SET credits_low_at = ?, credits_low_notified = 0 WHERE id = ? AND deleted_at IS NULL').run(threshold, accountId).changes === 1;
}

export async function settleCreditsLow(lite: Lite, accountId: string, announce: (credits: number, threshold: number) => readonly NewWebhookDelivery[]): Promise<'fell' | 'rearmed' | 'none'> {
  return lite.db
    .transaction((): 'fell' | 'rearmed' | 'none' => {
      const a = lite.sql('SELECT credits, credits_low_at AS at, credits_low_notified AS notified FROM accounts WHERE id = ? AND deleted_at IS NULL').get(accountId) as
        | { credits: number; at: number | null; notified: number }
        | undefined;
      if (!a || a.at === null) return 'none';
      if (a.credits < a.at && a.notified === 0) {
        lite.sql('UPDATE accounts SET credits_low_notified = 1 WHERE id = ?').run(accountId);
        for (const d of announce(a.credits, a.at)) lite.stmt.insertDelivery.run(...deliveryValues(d, ms));
        return 'fell';
      }
      if (a.credits >= a.at && a.notified === 1) {
        lite.sql('UPDATE accounts SET credits_low_notified = 0 WHERE id = ?').run(accountId);
        return 'rearmed';
      }
      return 'none';
    })
    .immediate();
}
