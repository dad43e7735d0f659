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
import { fundAccount, paidRecord, payBySettle } from '../helpers/pay-by-settle.js';
import { payingDoc } from '../../src/store/mongo/payments.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;

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
    await fundAccount(store, accountId, 10);
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
    target: null,
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
    successUrl: null,
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
    expect(await payBySettle(store, next, slip('TXOLD'))).toMatchObject({ status: 'paid' });
    // A claim made a moment ago may be a payment still being written: the slip is taken.
    await slipClaim('TXNEW', lost.id, new Date());
    const other = request();
    await store.createPaymentRequest(other);
    expect(await payBySettle(store, other, slip('TXNEW'))).toEqual({ status: 'slip_used', otherRequestId: lost.id });
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

  it('a settle killed between its charge and its payment: recovery pays the request, once, with its event', async () => {
    const pr = request();
    await store.createPaymentRequest(pr);
    const paying = slip('TXKILLED');
    const holdId = paying.verificationId;
    const longAgo = new Date('2020-01-01T00:00:00Z');
    await store.holdCredit({ id: holdId, accountId, keyId: 'key_test', createdAt: longAgo });
    const before = (await store.getAccount(accountId))!;
    // As the settle left it: its record with the payment to make (step 1), the charge decided (step 2), then killed.
    const at = new Date();
    const event = { id: id('whd'), eventId: id('evt'), endpointId: 'whe_x', accountId, type: 'payment_request.paid' as const, body: '{}', createdAt: at };
    const { id: _id, ...fields } = paidRecord(accountId, paying);
    await raw.collection('verify_transactions').insertOne({ _id, ...fields, paying: payingDoc({ request: pr, slip: paying, at, deliveries: [event] }) } as never);
    await raw.collection('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'charged', at: new Date() } as never);
    expect((await store.getPaymentRequest(pr.id))?.status).toBe('pending');

    expect(await store.recoverStaleHolds(new Date(Date.now() - 60_000), new Date())).toMatchObject({ consumed: 1 });
    expect(await store.recoverStaleHolds(new Date(Date.now() - 60_000), new Date())).toMatchObject({ consumed: 0, released: 0 });
    expect(await store.getPaymentRequest(pr.id)).toMatchObject({ status: 'paid', paidAt: at, paidBy: paying });
    const after = (await store.getAccount(accountId))!;
    expect({ usage: after.usage - before.usage, held: after.held - before.held, credits: after.credits - before.credits }).toEqual({ usage: 1, held: -1, credits: 0 });
    // The note is gone; the event rides in the request's update (the worker moves it to deliveries).
    expect(await raw.collection('verify_transactions').findOne({ _id: holdId } as never, { projection: { paying: 1 } })).toEqual({ _id: holdId });
    // The verdict the settle would have kept is kept by the recovery that finished it.
    expect(await raw.collection('verify_transactions').findOne({ _id: holdId } as never, { projection: { payment: 1 } })).toEqual({ _id: holdId, payment: { requestId: pr.id, status: 'paid', reason: null } });
    expect((await raw.collection('payment_requests').findOne({ _id: pr.id } as never))?.outbox?.map((d: { _id: string }) => d._id)).toEqual([event.id]);
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
    await fundAccount(store, accountId, 10);
    const make = async () => {
      const p: PaymentRequest = {
        id: id('pr'), accountId, receiverId: 'rcv_t', target: null, reference: id('order'), amount: 500, requestedAmount: 500, uniqueAmount: false, promptpay: 'qr',
        status: 'pending', createdAt: new Date(), expiresAt: new Date(Date.now() + 600_000), paidAt: null, paidBy: null, closedAt: null, successUrl: null,
      };
      await store.createPaymentRequest(p);
      return p;
    };
    const first = await make();
    const paying = { verificationId: id('vt'), transactionId: 'TXTWICE', sendingBank: '014', amount: 500, transferredAt: new Date() };
    // Each verification holds its credit on an account of its own: FerretDB applies an update by reading the
    // document and writing it back, and this case races the payment's documents, not an account's.
    const verifications = await Promise.all([1, 2, 3].map(async () => {
      const own = (await store.createAccount({ id: id('acc'), name: 'Twice', createdAt: new Date() })).id;
      await fundAccount(store, own, 1);
      const v = { ...paying, verificationId: id('vt') };
      await store.holdCredit({ id: v.verificationId, accountId: own, keyId: 'key_test', createdAt: new Date() });
      return { own, v };
    }));
    const results = await Promise.all(verifications.map(({ own, v }) => store.settleHold(paidRecord(own, v), [], { request: first, slip: v, at: new Date(), deliveries: [] })));
    expect(results.map((r) => r?.status)).toEqual(['paid', 'paid', 'paid']);
    const second = await make();
    expect(await payBySettle(store, second, { ...paying, verificationId: id('vt') })).toEqual({ status: 'slip_used', otherRequestId: first.id });
  });
});
