// account.credits_low on PostgreSQL (domain/credits-low.ts): the threshold,
// and its announce-once flag flipped with the event's deliveries in one
// transaction under the account's row lock, so two instances seeing the
// same fall announce it once.
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { DELIVERY_COLUMNS, deliveryValues } from '../sql/webhooks.js';
import type { PgDb } from './db.js';
import { isDeadlock } from './sql.js';

const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
/** A deadlock with a hold batch rolls the whole transaction back: tried again this many times. */
const ATTEMPTS = 3;

export async function creditsLowAt(db: PgDb, accountId: string): Promise<number | null> {
  const { rows } = await db.run<{ at: number | null }>('SELECT credits_low_at AS at FROM accounts WHERE id = $1', [accountId]);
  return rows[0]?.at ?? null;
}

export async function setCreditsLowAt(db: PgDb, accountId: string, threshold: number | null): Promise<boolean> {
  return (await db.run('UPDATE accounts SET credits_low_at = $1, credits_low_notified = false WHERE id = $2 AND deleted_at IS NULL', [threshold, accountId])).rowCount === 1;
}

export async function settleCreditsLow(db: PgDb, accountId: string, announce: (credits: number, threshold: number) => readonly NewWebhookDelivery[]): Promise<'fell' | 'rearmed' | 'none'> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.tx(async (run) => {
        const { rows } = await run<{ credits: number; at: number | null; notified: boolean }>(
          'SELECT credits, credits_low_at AS at, credits_low_notified AS notified FROM accounts WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE',
          [accountId],
        );
        const a = rows[0];
        if (!a || a.at === null) return 'none';
        if (a.credits < a.at && !a.notified) {
          await run('UPDATE accounts SET credits_low_notified = true WHERE id = $1', [accountId]);
          for (const d of announce(a.credits, a.at)) await run(INSERT_DELIVERY, deliveryValues(d, (at: Date) => at));
          return 'fell';
        }
        if (a.credits >= a.at && a.notified) {
          await run('UPDATE accounts SET credits_low_notified = false WHERE id = $1', [accountId]);
          return 'rearmed';
        }
        return 'none';
      });
    } catch (err) {
      if (!isDeadlock(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}
