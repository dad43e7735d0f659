// MongoDB's payment rules rest on claim documents (no transactions, no
// partial indexes): a slip's claim and a unique amount's claim. These cases
// leave the claims as a process killed between its two writes would (written
// through the raw driver) and check that the next payment or create takes
// such a claim over, while a live one still decides.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../src/domain/payments/types.js';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { createMongoDatabase, type TestMongoDatabase } from '../helpers/mongo.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const none = () => [];

describe('mongo store: payment claims left by a crash', () => {
  let db: TestMongoDatabase;
  let store: MongoStore;
  let client: mongoose.mongo.MongoClient;
  let raw: mongoose.mongo.Db;
  let accountId: string;

  beforeAll(async () => {
    db = createMongoDatabase();
    store = new MongoStore(db.url);
    await store.migrate();
    client = new mongoose.mongo.MongoClient(db.url, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    raw = client.db(db.name);
    accountId = (await store.createAccount({ id: id('acc'), name: 'Claims', createdAt: new Date() })).id;
  });
  afterAll(async () => {
    await client?.close();
    await store?.close();
    await db?.drop();
  });

  const request = (over: Partial<PaymentRequest> = {}): PaymentRequest => ({
    id: id('pr'),
    accountId,
    receiverId: 'rcv_claims',
    reference: id('order'),
    amount: 10_000,
    requestedAmount: 10_000,
    uniqueAmount: false,
    promptpay: 'qr',
    status: 'pending',
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + 1_800_000),
    paidAt: null,
    paidBy: null,
    closedAt: null,
    ...over,
  });
  const slip = (transactionId: string) => ({ verificationId: id('vt'), transactionId, sendingBank: '004', amount: 10_000, transferredAt: new Date() });
  const slipClaim = (transactionId: string, requestId: string, at: Date) => raw.collection('payment_slips').insertOne({ _id: JSON.stringify(['004', transactionId]) as never, requestId, at });

  it("a slip's claim whose payment never landed is taken over once old; a fresh one still refuses", async () => {
    const lost = request();
    const next = request();
    for (const p of [lost, next]) await store.createPaymentRequest(p);
    // The process claimed the slip for `lost` and died before marking it paid.
    await slipClaim('TXOLD', lost.id, new Date(Date.now() - 5 * 60_000));
    expect(await store.payPaymentRequest(next.id, slip('TXOLD'), new Date(), none)).toMatchObject({ status: 'paid' });
    // A claim made a moment ago may be a payment still being written: the slip is taken.
    await slipClaim('TXNEW', lost.id, new Date());
    const other = request();
    await store.createPaymentRequest(other);
    expect(await store.payPaymentRequest(other.id, slip('TXNEW'), new Date(), none)).toEqual({ status: 'slip_used', otherRequestId: lost.id });
    expect((await store.getPaymentRequest(lost.id))?.status).toBe('pending');
  });

  it("a unique amount's claim whose request never came is taken over once old; one of a request that stopped pending at once", async () => {
    const receiverId = id('rcv');
    // The process claimed the amount and died before inserting its request.
    const claim = (requestId: string, at: Date) => raw.collection('payment_amounts').insertOne({ _id: JSON.stringify([receiverId, 10_000]) as never, requestId, at });
    await claim('pr_being_written', new Date());
    // A moment ago: the request may be on its way.
    expect(await store.createPaymentRequest(request({ receiverId, uniqueAmount: true }))).toEqual({ status: 'amount_taken' });
    await raw.collection('payment_amounts').deleteMany({});
    await claim('pr_never_written', new Date(Date.now() - 5 * 60_000));
    expect(await store.createPaymentRequest(request({ receiverId, uniqueAmount: true }))).toEqual({ status: 'created' });
    expect(await store.createPaymentRequest(request({ receiverId, uniqueAmount: true }))).toEqual({ status: 'amount_taken' });
    // A claim left by a request that was cancelled (its release never ran) is free at once.
    const [held] = (await store.listPaymentRequests({ accountId, status: 'pending', limit: 50 })).items.filter((p) => p.receiverId === receiverId);
    await raw.collection('payment_requests').updateOne({ _id: held!.id as never }, { $set: { status: 'cancelled' } });
    expect(await store.createPaymentRequest(request({ receiverId, uniqueAmount: true }))).toEqual({ status: 'created' });
  });
});

describe('mongo store: one slip sent twice at once for one request', () => {
  let db: TestMongoDatabase;
  let store: MongoStore;
  beforeAll(async () => {
    db = createMongoDatabase();
    store = new MongoStore(db.url);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('both calls are told paid, and the slip still cannot pay another request', async () => {
    const accountId = (await store.createAccount({ id: id('acc'), name: 'Twice', createdAt: new Date() })).id;
    const make = async () => {
      const p: PaymentRequest = {
        id: id('pr'), accountId, receiverId: 'rcv_t', reference: id('order'), amount: 500, requestedAmount: 500, uniqueAmount: false, promptpay: 'qr',
        status: 'pending', createdAt: new Date(), expiresAt: new Date(Date.now() + 600_000), paidAt: null, paidBy: null, closedAt: null,
      };
      await store.createPaymentRequest(p);
      return p;
    };
    const first = await make();
    const paying = { verificationId: id('vt'), transactionId: 'TXTWICE', sendingBank: '014', amount: 500, transferredAt: new Date() };
    const results = await Promise.all([1, 2, 3].map(() => store.payPaymentRequest(first.id, paying, new Date(), none)));
    expect(results.map((r) => r.status)).toEqual(['paid', 'paid', 'paid']);
    const second = await make();
    expect(await store.payPaymentRequest(second.id, { ...paying, verificationId: id('vt') }, new Date(), none)).toEqual({ status: 'slip_used', otherRequestId: first.id });
  });
});
