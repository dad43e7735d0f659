// Re-checks on MongoDB, without multi-document transactions: each write is
// one document's conditional update (unfinished). A finish's event is
// written right after the finish that won it; a crash between the two
// loses that event (the re-check's outcome is kept), the one gap the SQL
// engines' transaction closes.
import type { OpenRechecksQuery } from '../../domain/ports/store-rechecks.js';
import type { Recheck, RecheckFinish, RecheckOutcome } from '../../domain/rechecks/types.js';
import { StoreError } from '../../domain/ports/store.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { isDuplicateKey, mapped } from './connection.js';
import type { RecheckDoc } from './recheck-schemas.js';
import type { Models } from './schemas.js';
import { deliveryDoc } from './webhooks.js';

const OPEN = { finishedAt: null };
const NEWEST = { createdAt: -1, _id: -1 } as const;

// redactedAt is retention's alone (retention.ts), as the SQL engines' column is: not part of a Recheck.
const toRecheck = ({ _id, outcome, redactedAt: _redactedAt, ...d }: RecheckDoc): Recheck => ({ id: _id, ...d, outcome: outcome as RecheckOutcome | null, lineChannelId: d.lineChannelId ?? null, lineUserId: d.lineUserId ?? null });

/**
 * The migration that gave re-checks their LINE chat (lineChannelId,
 * lineUserId): documents stored before it get both as null, as the SQL
 * engines' added columns do. Idempotent: it touches only documents without them.
 */
export async function backfillLineChat(m: Models): Promise<void> {
  await m.rechecks.collection.updateMany({ lineUserId: { $exists: false } }, { $set: { lineChannelId: null, lineUserId: null } });
}

export async function createRecheck(m: Models, r: Recheck, maxOpen: number): Promise<boolean> {
  return mapped(async () => {
    // The SQL engines' foreign key, checked by hand (no joins here).
    if (!(await m.accounts.exists({ _id: r.accountId }))) throw new StoreError('conflict', 'account does not exist');
    if ((await m.rechecks.countDocuments({ accountId: r.accountId, ...OPEN })) >= maxOpen) return false;
    const { id, ...rest } = r;
    await m.rechecks.create({ _id: id, ...rest });
    return true;
  });
}

export async function getRecheck(m: Models, id: string): Promise<Recheck | null> {
  return mapped(async () => {
    const d = await m.rechecks.findById(id).lean<RecheckDoc>();
    return d ? toRecheck(d) : null;
  });
}

export async function openRechecks(m: Models, q: OpenRechecksQuery): Promise<Recheck[]> {
  const filter = {
    accountId: q.accountId,
    ...(q.paymentRequestId === undefined ? {} : { paymentRequestId: q.paymentRequestId }),
    ...(q.slip ? { transRef: q.slip.transRef, sendingBank: q.slip.sendingBank } : {}),
    ...OPEN,
  };
  return mapped(async () => (await m.rechecks.find(filter).sort(NEWEST).limit(q.limit).lean<RecheckDoc[]>()).map(toRecheck));
}

export async function countOpenRechecks(m: Models): Promise<number> {
  return mapped(() => m.rechecks.countDocuments(OPEN));
}

export async function dueRechecks(m: Models, now: Date, limit: number): Promise<Recheck[]> {
  return mapped(async () =>
    (await m.rechecks.find({ ...OPEN, nextAttemptAt: { $lte: now } }).sort({ finishedAt: 1, nextAttemptAt: 1 }).limit(limit).lean<RecheckDoc[]>()).map(toRecheck),
  );
}

export async function postponeRecheck(m: Models, id: string, next: Pick<Recheck, 'attempts' | 'nextAttemptAt' | 'attemptId'>): Promise<boolean> {
  return mapped(async () => (await m.rechecks.updateOne({ _id: id, ...OPEN }, { $set: next })).modifiedCount === 1);
}

export async function finishRecheck(m: Models, id: string, finish: RecheckFinish, deliveries: readonly NewWebhookDelivery[] = []): Promise<boolean> {
  return mapped(async () => {
    const won = await m.rechecks.updateOne({ _id: id, ...OPEN }, { $set: { outcome: finish.outcome, finishedAt: finish.at, result: finish.result ?? null, lineUserId: null } });
    if (won.modifiedCount !== 1) return false;
    for (const d of deliveries) {
      try {
        await m.webhookDeliveries.collection.insertOne(deliveryDoc(d) as never);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    return true;
  });
}

export async function verificationRecorded(m: Models, id: string): Promise<boolean> {
  return mapped(async () => (await m.verifyTransactions.exists({ _id: id })) !== null);
}
