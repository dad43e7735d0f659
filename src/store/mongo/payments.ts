// Payment requests on MongoDB, without multi-document transactions. Each
// rule rests on one document's atomic write:
//   - a reference: the unique (accountId, reference) index;
//   - a request paid once: the update from status 'pending', re-checked
//     under the document lock;
//   - a slip paying once: its claim in payment_slips (unique _id), taken
//     before the request's update and given back if that update loses;
//   - a unique amount: its claim in payment_amounts, taken before the
//     request is inserted and given back when it stops being pending.
// A claim left by a crash between two writes names a request that does not
// hold it (not paid by that slip, not pending); the next claimant sees that
// and takes it over. The webhook outbox rides in the request's own update
// (webhooks.ts moves it to deliveries). Paying is a step of the settle that
// charges the slip (holds.ts), which recovery finishes after a crash.
import { StoreError, type Page, type SettlePayment } from '../../domain/ports/store.js';
import type { CreatePaymentResult, PayResult, PayingSlip, PaymentQuery, PaymentRecord, PaymentRequest, PaymentStatus } from '../../domain/payments/types.js';
import { openToStaff, payableBy } from '../../domain/payments/payable.js';
import { paymentVerdict, recordedVerdict } from '../../domain/payments/paying.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import { isDuplicateKey, mapped } from './connection.js';
import { afterCursor, all, NEWEST_FIRST, type Filter } from './filters.js';
import type { PaymentRequestDoc } from './payment-schemas.js';
import type { PayingDoc } from './doc-types.js';
import { receiver, type ReceiverDoc } from './docs.js';
import { targetOf } from '../../domain/payments/target.js';
import { rawAccounts, type Models } from './schemas.js';
import { outboxFields } from './webhooks.js';

/** A slip's claim younger than this may belong to a payment still being written: it is not taken over. */
const CLAIM_SETTLE_MS = 60_000;

const toRequest = (d: PaymentRequestDoc): PaymentRequest => ({
  id: d._id,
  accountId: d.accountId,
  receiverId: d.receiverId,
  target: d.target ?? null,
  successUrl: d.successUrl ?? null,
  reference: d.reference,
  amount: d.amount,
  requestedAmount: d.requestedAmount,
  uniqueAmount: d.uniqueAmount,
  promptpay: d.promptpay,
  status: d.status as PaymentStatus,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
  paidAt: d.paidAt ?? null,
  paidBy: d.paidBy ?? null,
  closedAt: d.closedAt ?? null,
});

/** A slip claim's _id: its sending bank and transaction id (slip-references.ts moves old claims to the slip's identity). */
export const slipKey = (s: Pick<PayingSlip, 'sendingBank' | 'transactionId'>) => JSON.stringify([s.sendingBank, s.transactionId]);
const amountKey = (p: Pick<PaymentRequest, 'receiverId' | 'amount'>) => JSON.stringify([p.receiverId, p.amount]);
const paidBySame = (p: PaymentRequest, s: PayingSlip) => p.status === 'paid' && p.paidBy?.transactionId === s.transactionId && p.paidBy.sendingBank === s.sendingBank;

export async function uniquePaymentAmounts(m: Models, accountId: string): Promise<boolean> {
  return mapped(async () => (await rawAccounts(m).findOne({ _id: accountId }, { projection: { uniquePaymentAmounts: 1 } }))?.uniquePaymentAmounts === true);
}

export async function setUniquePaymentAmounts(m: Models, accountId: string, on: boolean): Promise<boolean> {
  return mapped(async () => (await rawAccounts(m).updateOne({ _id: accountId, deletedAt: null }, { $set: { uniquePaymentAmounts: on } })).matchedCount === 1);
}

export async function getPaymentRequest(m: Models, id: string): Promise<PaymentRequest | null> {
  return mapped(async () => {
    const d = await m.paymentRequests.findById(id).lean<PaymentRequestDoc>();
    return d ? toRequest(d) : null;
  });
}

export async function findPaymentRequest(m: Models, accountId: string, reference: string): Promise<PaymentRequest | null> {
  return mapped(async () => {
    const d = await m.paymentRequests.findOne({ accountId, reference }).lean<PaymentRequestDoc>();
    return d ? toRequest(d) : null;
  });
}

export async function listPaymentRequests(m: Models, q: PaymentQuery): Promise<Page<PaymentRequest>> {
  return mapped(async () => {
    const clauses: Filter[] = [];
    if (q.accountId) clauses.push({ accountId: q.accountId });
    if (q.status) clauses.push({ status: q.status });
    if (q.from) clauses.push({ createdAt: { $gte: q.from } });
    if (q.to) clauses.push({ createdAt: { $lt: q.to } });
    if (q.after) clauses.push(afterCursor(q.after));
    const docs = await m.paymentRequests.find(all(clauses)).sort(NEWEST_FIRST).limit(q.limit + 1).lean<PaymentRequestDoc[]>();
    return toPage(docs.map(toRequest), q.limit, (p) => p.createdAt);
  });
}

export async function pendingPaymentRequests(m: Models, accountId: string, limit: number): Promise<PaymentRequest[]> {
  return mapped(async () =>
    (await m.paymentRequests.find({ accountId, status: 'pending' }).sort(PENDING_ORDER).limit(limit).lean<PaymentRequestDoc[]>()).map(toRequest),
  );
}

/** The pending lookup's sort: its index's own order after the account and status. */
export const PENDING_ORDER = { createdAt: -1, _id: -1 } as const;

/**
 * migrate(): requests made before targets were kept take their receiver's
 * (null when it is gone). A no-op once done; the read of requests without
 * one is a scan, once per start.
 */
export async function backfillPaymentTargets(m: Models): Promise<void> {
  const receiverIds = (await m.paymentRequests.collection.distinct('receiverId', { target: { $exists: false } })) as string[];
  for (const receiverId of receiverIds) {
    const r = await m.receivers.findById(receiverId).lean<ReceiverDoc>();
    const target = r ? targetOf(receiver(r)) : null;
    await m.paymentRequests.collection.updateMany({ receiverId, target: { $exists: false } }, { $set: { target } });
  }
}

export async function createPaymentRequest(m: Models, p: PaymentRequest): Promise<CreatePaymentResult> {
  return mapped(async () => {
    const existing = await findPaymentRequest(m, p.accountId, p.reference);
    if (existing) return { status: 'reference_taken', existing };
    if (p.uniqueAmount && !(await claimAmount(m, p))) return { status: 'amount_taken' };
    const { id, ...fields } = p;
    try {
      await m.paymentRequests.collection.insertOne({ _id: id, ...fields } as never);
      return { status: 'created' };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      if (p.uniqueAmount) await m.paymentAmounts.deleteOne({ _id: amountKey(p), requestId: p.id });
      const first = await findPaymentRequest(m, p.accountId, p.reference);
      if (first) return { status: 'reference_taken', existing: first };
      throw err;
    }
  });
}

async function claimAmount(m: Models, p: PaymentRequest): Promise<boolean> {
  const _id = amountKey(p);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await m.paymentAmounts.collection.insertOne({ _id, requestId: p.id, at: p.createdAt } as never);
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const claim = await m.paymentAmounts.findById(_id).lean();
    if (!claim) continue;
    const holder = await m.paymentRequests.findById(claim.requestId).lean<PaymentRequestDoc>();
    // Held by a pending request, or by one being inserted right now (not there yet, and the claim is young): taken.
    if (holder?.status === 'pending') return false;
    if (!holder && p.createdAt.getTime() - (claim.at?.getTime() ?? 0) < CLAIM_SETTLE_MS) return false;
    await m.paymentAmounts.deleteOne({ _id, requestId: claim.requestId });
  }
  return false;
}

async function releaseAmount(m: Models, p: PaymentRequest): Promise<void> {
  if (p.uniqueAmount) await m.paymentAmounts.deleteOne({ _id: amountKey(p), requestId: p.id });
}

/**
 * A claim per check, decided by a unique _id (`<request id>#<n>`, n from 1 to
 * max) as the pending-amount claims are: the first free n is this check's,
 * and none free means the bound is reached, whatever runs at the same time.
 */
export async function takeCheckoutCheck(m: Models, id: string, max: number): Promise<boolean> {
  return mapped(async () => {
    if (!(await m.paymentRequests.exists({ _id: id }))) return false;
    const claims = m.paymentRequests.db.collection<{ _id: string; requestId: string }>('checkout_checks');
    for (let n = 1; n <= max; n++) {
      try {
        await claims.insertOne({ _id: `${id}#${n}`, requestId: id });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    return false;
  });
}

export async function cancelPaymentRequest(m: Models, id: string, at: Date): Promise<PaymentRequest | null> {
  return mapped(async () => {
    const d = await m.paymentRequests.collection.findOneAndUpdate({ _id: id as never, status: 'pending' }, { $set: { status: 'cancelled', closedAt: at } }, { returnDocument: 'after' });
    if (d) await releaseAmount(m, toRequest(d as unknown as PaymentRequestDoc));
    return getPaymentRequest(m, id);
  });
}

/** The payment a settle makes, as it keeps it in its verification's document (holds.ts). */
export const payingDoc = (p: SettlePayment): PayingDoc => ({ requestId: p.request.id, requestStatus: p.request.status, slip: p.slip, at: p.at, ...outboxFields(p.deliveries) });

/** The verdict the verification's record keeps about its payment. */
export const payingVerdict = (p: PayingDoc, result: PayResult): PaymentRecord =>
  recordedVerdict(paymentVerdict({ request: { id: p.requestId, status: p.requestStatus ?? 'pending' }, slip: p.slip }, result));

/** Pays the request iff it is still pending and the slip paid no other; again for a slip that already paid it (a retried or recovered settle). */
export async function payRequest(m: Models, { requestId: id, slip, at, outbox, outboxAt }: PayingDoc, payable: (request: PaymentRequest, slip: PayingSlip) => boolean = payableBy): Promise<PayResult> {
  const request = await getPaymentRequest(m, id);
  if (!request) throw new StoreError('not_found', 'payment request not found');
  if (paidBySame(request, slip)) return { status: 'paid', request };
  if (!payable(request, slip)) return { status: 'not_pending', request };
  const other = await claimSlip(m, id, slip, at);
  if (other) return { status: 'slip_used', otherRequestId: other };
  const paid: PaymentRequest = { ...request, status: 'paid', paidAt: at, paidBy: slip };
  // An in-time transfer (or staff) pays a request expiry marked meanwhile too (payable.ts); expiresAt never changes.
  const payableStatus = payable({ ...request, status: 'expired' }, slip) ? { $in: ['pending', 'expired'] } : 'pending';
  const won = await m.paymentRequests.collection.updateOne({ _id: id as never, status: payableStatus as never }, { $set: { status: 'paid', paidAt: at, paidBy: slip, ...(outbox ? { outbox, outboxAt } : {}) } });
  if (won.modifiedCount === 1) {
    await releaseAmount(m, paid);
    return { status: 'paid', request: paid };
  }
  const now = (await getPaymentRequest(m, id))!;
  // The same slip, sent twice at once, paid it in the other call: the claim stays.
  if (paidBySame(now, slip)) return { status: 'paid', request: now };
  // Another slip paid it first (or it was cancelled or expired): the slip is free again.
  await m.paymentSlips.deleteOne({ _id: slipKey(slip), requestId: id });
  return { status: 'not_pending', request: now };
}

/** Staff resolution: the payment by the same rules as a settle's, then the verification's verdict (see the port). */
export async function resolvePaymentRequest(m: Models, payment: SettlePayment): Promise<PayResult> {
  return mapped(async () => {
    const result = await payRequest(m, payingDoc(payment), openToStaff);
    if (result.status === 'paid') await m.verifyTransactions.updateOne({ _id: payment.slip.verificationId }, { $set: { payment: { requestId: payment.request.id, status: 'paid', reason: null } } });
    return result;
  });
}

/** Null when the slip is now claimed for `id`; otherwise the request it paid (or is paying). */
async function claimSlip(m: Models, id: string, slip: PayingSlip, at: Date): Promise<string | null> {
  const _id = slipKey(slip);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await m.paymentSlips.collection.insertOne({ _id, requestId: id, at } as never);
      return null;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const claim = await m.paymentSlips.findById(_id).lean();
    if (!claim) continue;
    if (claim.requestId === id) return null;
    const holder = await getPaymentRequest(m, claim.requestId);
    if (holder && paidBySame(holder, slip)) return holder.id;
    // A claim whose payment never landed (lost its race, or a crash): taken over once it is old enough to be sure.
    if (at.getTime() - claim.at.getTime() < CLAIM_SETTLE_MS) return claim.requestId;
    await m.paymentSlips.deleteOne({ _id, requestId: claim.requestId });
  }
  return (await m.paymentSlips.findById(_id).lean())?.requestId ?? null;
}

export async function duePaymentRequests(m: Models, now: Date, limit: number): Promise<PaymentRequest[]> {
  return mapped(async () =>
    (await m.paymentRequests.find({ status: 'pending', expiresAt: { $lte: now } }).sort({ status: 1, expiresAt: 1 }).limit(limit).lean<PaymentRequestDoc[]>()).map(toRequest),
  );
}

export async function expirePaymentRequests(
  m: Models,
  ids: readonly string[],
  now: Date,
  deliveries: (request: PaymentRequest) => readonly NewWebhookDelivery[],
): Promise<PaymentRequest[]> {
  return mapped(async () => {
    const expired: PaymentRequest[] = [];
    for (const id of ids) {
      const current = await getPaymentRequest(m, id);
      if (current?.status !== 'pending' || current.expiresAt > now) continue;
      const after: PaymentRequest = { ...current, status: 'expired', closedAt: now };
      const won = await m.paymentRequests.collection.updateOne({ _id: id as never, status: 'pending' }, { $set: { status: 'expired', closedAt: now, ...outboxFields(deliveries(after)) } });
      if (won.modifiedCount !== 1) continue;
      await releaseAmount(m, after);
      expired.push(after);
    }
    return expired;
  });
}

/** Moves the outboxes of paid and expired requests into webhook_deliveries (idempotent: deterministic ids). */
export async function promotePaymentOutboxes(m: Models, now: Date, limit: number): Promise<void> {
  const pending = await m.paymentRequests.find({ outboxAt: { $lte: now } }, { _id: 1, outbox: 1 }).sort({ outboxAt: 1 }).limit(limit).lean<PaymentRequestDoc[]>();
  for (const p of pending) {
    for (const d of p.outbox ?? []) {
      try {
        await m.webhookDeliveries.collection.insertOne(d as never);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    await m.paymentRequests.updateOne({ _id: p._id }, { $unset: { outbox: 1, outboxAt: 1 } });
  }
}
