// The migration that gives the documents already stored the slip's
// identity: its reference in upper case (domain/verify/slip-qr.ts,
// slipReference), the spelling every lookup and the one-slip-one-request
// claim now use. The SQL engines' version is sql/slip-references.ts; this
// is its MongoDB form, run by every start (migrate()) and idempotent: it
// reads only documents whose reference still has a lower-case letter.
import type { mongo } from 'mongoose';
import { slipReference } from '../../domain/verify/slip-qr.js';
import { isDuplicateKey } from './connection.js';
import type { PaymentRequestDoc, PaymentSlipDoc } from './payment-schemas.js';
import { slipKey } from './payments.js';
import type { Models } from './schemas.js';

const HAS_LOWER_CASE = /[a-z]/;
const BATCH = 500;

export async function backfillSlipReferences(m: Models): Promise<void> {
  await upperCase(m.verifyTransactions.collection, 'transactionId');
  await upperCase(m.requestErrors.collection, 'transactionId');
  await upperCase(m.rechecks.collection, 'transRef');
  await upperCasePayments(m);
}

async function upperCase(collection: mongo.Collection<mongo.Document>, field: string): Promise<void> {
  let batch: mongo.AnyBulkWriteOperation<mongo.Document>[] = [];
  const flush = async () => {
    if (batch.length > 0) await collection.bulkWrite(batch, { ordered: false });
    batch = [];
  };
  for await (const doc of collection.find({ [field]: HAS_LOWER_CASE }, { projection: { [field]: 1 } })) {
    const written = doc[field] as string;
    batch.push({ updateOne: { filter: { _id: doc._id, [field]: written }, update: { $set: { [field]: slipReference(written) } } } });
    if (batch.length === BATCH) await flush();
  }
  await flush();
}

/**
 * A slip pays one request: two requests paid before this upgrade by
 * spellings of one transfer (a re-cased QR) cannot both take its identity.
 * The first paid does, unless a request already holds it; the other keeps
 * its own spelling and claim, the record of that double payment (as on the
 * SQL engines). The claim moves first, so a start cut short between the
 * steps finds the identity claimed for this very request and goes on.
 */
async function upperCasePayments(m: Models): Promise<void> {
  const requests = m.paymentRequests.collection as unknown as mongo.Collection<PaymentRequestDoc>;
  const claims = m.paymentSlips.collection as unknown as mongo.Collection<PaymentSlipDoc>;
  const lowerCased = requests.find({ 'paidBy.transactionId': HAS_LOWER_CASE }, { projection: { paidBy: 1, paidAt: 1 } }).sort({ paidAt: 1, _id: 1 });
  for await (const doc of lowerCased) {
    const by = doc.paidBy!;
    const slip = { sendingBank: by.sendingBank, transactionId: slipReference(by.transactionId) };
    if (await requests.findOne({ _id: { $ne: doc._id }, 'paidBy.transactionId': slip.transactionId, 'paidBy.sendingBank': slip.sendingBank }, { projection: { _id: 1 } })) continue;
    const written = await claims.findOne({ _id: slipKey(by) });
    try {
      await claims.insertOne({ _id: slipKey(slip), requestId: doc._id, at: written?.at ?? doc.paidAt ?? new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      if ((await claims.findOne({ _id: slipKey(slip) }))?.requestId !== doc._id) continue;
    }
    await requests.updateOne({ _id: doc._id, 'paidBy.transactionId': by.transactionId }, { $set: { 'paidBy.transactionId': slip.transactionId } });
    await claims.deleteOne({ _id: slipKey(by), requestId: doc._id });
  }
}
