// Webhook endpoints and deliveries on MongoDB. Without multi-document
// transactions the outbox rides in the verification's own document (one
// atomic write with the success record, holds.ts). The worker's claim first
// moves outboxes whose hold is known charged into webhook_deliveries: the
// copy is idempotent (deterministic ids) and the outbox is unset after it,
// so a crash between the two only repeats the copy.
import type { Page } from '../../domain/ports/store.js';
import type { DeliveryNext, DeliveryQuery, NewWebhookDelivery, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import { isDuplicateKey, mapped } from './connection.js';
import type { VerifyTransactionDoc, WebhookDeliveryDoc, WebhookEndpointDoc } from './docs.js';
import { afterCursor, all, NEWEST_FIRST, type Filter } from './filters.js';
import { promotePaymentOutboxes } from './payments.js';
import { rawAccounts, type Models } from './schemas.js';

/** Outboxes moved per claim: enough to keep up, small enough to stay short. */
const PROMOTE_BATCH = 100;

export const deliveryDoc = (d: NewWebhookDelivery): WebhookDeliveryDoc => ({
  _id: d.id,
  eventId: d.eventId,
  endpointId: d.endpointId,
  accountId: d.accountId,
  type: d.type,
  body: d.body,
  state: 'pending',
  nextAttemptAt: d.createdAt,
  attempts: [],
  claim: null,
  leaseUntil: null,
  deliveredAt: null,
  createdAt: d.createdAt,
});

/** The fields a settle adds to the verification's document when endpoints listen. */
export const outboxFields = (deliveries: readonly NewWebhookDelivery[]): Pick<VerifyTransactionDoc, 'outbox' | 'outboxAt'> =>
  deliveries.length === 0 ? {} : { outbox: deliveries.map(deliveryDoc), outboxAt: deliveries[0]!.createdAt };

const endpoint = (d: WebhookEndpointDoc): WebhookEndpoint => ({
  id: d._id,
  accountId: d.accountId,
  url: d.url,
  events: d.events as WebhookEventType[],
  sealedSecret: d.secret,
  createdAt: d.createdAt,
  removedAt: d.removedAt ?? null,
});

const delivery = (d: WebhookDeliveryDoc): WebhookDelivery => ({
  id: d._id,
  eventId: d.eventId,
  endpointId: d.endpointId,
  accountId: d.accountId,
  type: d.type as WebhookEventType,
  body: d.body,
  state: d.state as WebhookDelivery['state'],
  nextAttemptAt: d.nextAttemptAt,
  attempts: (d.attempts ?? []).map((a) => ({ at: a.at, statusCode: a.statusCode ?? null, error: a.error ?? null, durationMs: a.durationMs })),
  deliveredAt: d.deliveredAt ?? null,
  createdAt: d.createdAt,
});

export async function createWebhookEndpoint(m: Models, e: WebhookEndpoint): Promise<void> {
  await mapped(() => m.webhookEndpoints.create({ _id: e.id, accountId: e.accountId, url: e.url, events: e.events, secret: e.sealedSecret, createdAt: e.createdAt, removedAt: null }));
}

export async function getWebhookEndpoint(m: Models, id: string): Promise<WebhookEndpoint | null> {
  return mapped(async () => {
    const d = await m.webhookEndpoints.findById(id).lean<WebhookEndpointDoc>();
    return d ? endpoint(d) : null;
  });
}

export async function listWebhookEndpoints(m: Models, accountId: string): Promise<WebhookEndpoint[]> {
  return mapped(async () => (await m.webhookEndpoints.find({ accountId, removedAt: null }).sort({ createdAt: 1, _id: 1 }).lean<WebhookEndpointDoc[]>()).map(endpoint));
}

export async function removeWebhookEndpoint(m: Models, id: string, at: Date): Promise<boolean> {
  return mapped(async () => (await m.webhookEndpoints.updateOne({ _id: id, removedAt: null }, { $set: { removedAt: at } })).modifiedCount === 1);
}

export async function claimWebhookDeliveries(m: Models, q: { claim: string; now: Date; leaseMs: number; limit: number }): Promise<WebhookDelivery[]> {
  return mapped(async () => {
    await promoteOutboxes(m, q.now);
    const claimed: WebhookDelivery[] = [];
    const leaseUntil = new Date(q.now.getTime() + q.leaseMs);
    // One conditional update per delivery: the filter is re-checked under
    // the document lock, so only one caller's update matches.
    while (claimed.length < q.limit) {
      const d = await m.webhookDeliveries.collection.findOneAndUpdate(
        { state: 'pending', nextAttemptAt: { $lte: q.now }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: q.now } }] },
        { $set: { claim: q.claim, leaseUntil } },
        { sort: { state: 1, nextAttemptAt: 1 }, returnDocument: 'after' },
      );
      if (!d) break;
      claimed.push(delivery(d as unknown as WebhookDeliveryDoc));
    }
    return claimed;
  });
}

/** Copies the outboxes of charged verifications into webhook_deliveries. */
async function promoteOutboxes(m: Models, now: Date): Promise<void> {
  const pending = await m.verifyTransactions
    .find({ outboxAt: { $lte: now } }, { _id: 1, accountId: 1, outbox: 1 })
    .sort({ outboxAt: 1 })
    .limit(PROMOTE_BATCH)
    .lean<Pick<VerifyTransactionDoc, '_id' | 'accountId' | 'outbox'>[]>();
  for (const vt of pending) {
    if (!(await charged(m, vt._id, vt.accountId))) continue;
    for (const d of vt.outbox ?? []) {
      try {
        await m.webhookDeliveries.collection.insertOne(d as never);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    await m.verifyTransactions.updateOne({ _id: vt._id }, { $unset: { outbox: 1, outboxAt: 1 } });
  }
  await promotePaymentOutboxes(m, now, PROMOTE_BATCH);
}

/**
 * Whether the verification's hold was charged (holds.ts): its outcome says
 * so; without one, a hold still open is undecided, and a hold gone with its
 * record still there was charged (outcomes are purged after a day; a refund
 * deletes the record).
 */
async function charged(m: Models, holdId: string, accountId: string): Promise<boolean> {
  const outcome = await m.holdOutcomes.findById(holdId).lean();
  if (outcome) return outcome.outcome === 'charged';
  return !(await rawAccounts(m).findOne({ _id: accountId, 'holds._id': holdId }, { projection: { _id: 1 } }));
}

export async function finishWebhookAttempt(m: Models, id: string, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<boolean> {
  const set: Filter = { state: next.state, claim: null, leaseUntil: null };
  if (next.state === 'pending') set.nextAttemptAt = next.nextAttemptAt;
  if (next.state === 'delivered') set.deliveredAt = attempt.at;
  set.finishedAt = next.state === 'pending' ? null : attempt.at;
  return mapped(async () => (await m.webhookDeliveries.collection.updateOne({ _id: id as never, claim }, { $set: set, $push: { attempts: attempt as never } })).modifiedCount === 1);
}

export async function getWebhookDelivery(m: Models, id: string): Promise<WebhookDelivery | null> {
  return mapped(async () => {
    await promoteOutboxes(m, new Date());
    const d = await m.webhookDeliveries.findById(id).lean<WebhookDeliveryDoc>();
    return d ? delivery(d) : null;
  });
}

export async function listWebhookDeliveries(m: Models, q: DeliveryQuery): Promise<Page<WebhookDelivery>> {
  return mapped(async () => {
    // What the worker would move next is shown as it will be, not missed.
    await promoteOutboxes(m, new Date());
    const clauses: Filter[] = [];
    if (q.endpointId) clauses.push({ endpointId: q.endpointId });
    if (q.accountId) clauses.push({ accountId: q.accountId });
    if (q.after) clauses.push(afterCursor(q.after));
    const docs = await m.webhookDeliveries.find(all(clauses)).sort(NEWEST_FIRST).limit(q.limit + 1).lean<WebhookDeliveryDoc[]>();
    return toPage(docs.map(delivery), q.limit, (d) => d.createdAt);
  });
}

/**
 * Deliveries that finished before the field existed get it, once: from
 * their delivery, or their last due time. Run by migrate(); the null end of
 * the finishedAt index holds only pending deliveries and these.
 */
const FINISHED = ['delivered', 'failed'];

export async function backfillFinishedAt(m: Models): Promise<void> {
  for (;;) {
    const docs = await m.webhookDeliveries
      .find({ finishedAt: null, state: { $in: FINISHED } }, { _id: 1, deliveredAt: 1, nextAttemptAt: 1 })
      .limit(1000)
      .lean<Pick<WebhookDeliveryDoc, '_id' | 'deliveredAt' | 'nextAttemptAt'>[]>();
    if (docs.length === 0) return;
    await m.webhookDeliveries.collection.bulkWrite(
      docs.map((d) => ({ updateOne: { filter: { _id: d._id, finishedAt: null, state: { $in: FINISHED } } as never, update: { $set: { finishedAt: d.deliveredAt ?? d.nextAttemptAt } } } })),
      { ordered: false },
    );
  }
}

export async function redeliverWebhook(m: Models, id: string, now: Date): Promise<boolean> {
  return mapped(async () => {
    await promoteOutboxes(m, now);
    return (await m.webhookDeliveries.updateOne({ _id: id }, { $set: { state: 'pending', nextAttemptAt: now, finishedAt: null } })).matchedCount === 1;
  });
}
