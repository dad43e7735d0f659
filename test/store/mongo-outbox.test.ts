// MongoDB's webhook outbox rides in the verification's own document (no
// multi-document transactions). These cases leave the database as a process
// killed mid-settle or mid-move would (written through the raw driver) and
// check that an event goes out iff its hold was charged, and once.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { openMongoStoreWithDriver } from '../helpers/mongo.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const LONG_AGO = new Date('2020-01-01T00:00:00Z');

describe('mongo store: the webhook outbox', () => {
  let mongo: Awaited<ReturnType<typeof openMongoStoreWithDriver>> | undefined;
  let store: MongoStore;
  let raw: mongoose.mongo.Db;

  beforeAll(async () => {
    mongo = await openMongoStoreWithDriver();
    ({ store, raw } = mongo);
  });
  afterAll(() => mongo?.close());

  /** An account with one credit held at `at`, and the verification record with its outbox as the settle's first write leaves it. */
  async function settleDiedAfterRecord(at: Date) {
    const account = await store.createAccount({ id: id('acc'), name: 'Outbox', createdAt: new Date() });
    await store.applyLedgerEntry({ id: id('led'), accountId: account.id, kind: 'top_up', delta: 1, reason: 't', actor: 't', idempotencyKey: null, createdAt: new Date() });
    const holdId = id('req');
    expect(await store.holdCredit({ id: holdId, accountId: account.id, keyId: 'key_x', createdAt: at, instanceId: null })).toMatchObject({ status: 'held' });
    const delivery = { _id: id('whd'), eventId: id('evt'), endpointId: id('whe'), accountId: account.id, type: 'verification.succeeded', body: '{}', state: 'pending', nextAttemptAt: at, attempts: [], claim: null, leaseUntil: null, deliveredAt: null, createdAt: at };
    await raw.collection('verify_transactions').insertOne({
      _id: holdId,
      accountId: account.id,
      keyId: 'key_x',
      requestId: holdId,
      qrcode: 'qr',
      transactionId: 'TX',
      amount: 1,
      sendingBank: '004',
      receivingBank: '014',
      upstream: 'sandbox',
      latencyMs: 1,
      response: {},
      createdAt: at,
      outbox: [delivery],
      outboxAt: at,
    } as never);
    return { accountId: account.id, holdId, deliveryId: delivery._id, delivery };
  }
  const claimIds = async () => (await store.claimWebhookDeliveries({ claim: id('c'), now: new Date(), leaseMs: 1, limit: 1000 })).map((d) => d.id);
  const stored = (deliveryId: string) => raw.collection('webhook_deliveries').countDocuments({ _id: deliveryId } as never);

  it('keeps the event of an undecided hold back, and sends it once recovery charged the hold', async () => {
    const { deliveryId } = await settleDiedAfterRecord(LONG_AGO);
    expect(await claimIds()).not.toContain(deliveryId);
    expect(await stored(deliveryId)).toBe(0);
    expect(await store.recoverStaleHolds(new Date(Date.now() - 60_000), new Date())).toMatchObject({ consumed: 1 });
    expect(await claimIds()).toContain(deliveryId);
    expect(await raw.collection('verify_transactions').countDocuments({ outbox: { $exists: true }, 'outbox._id': deliveryId } as never)).toBe(0);
  });

  it('never sends the event of a hold that was refunded', async () => {
    const { accountId, holdId, deliveryId } = await settleDiedAfterRecord(new Date());
    await raw.collection('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'refunded', at: new Date() } as never);
    expect(await claimIds()).not.toContain(deliveryId);
    expect(await stored(deliveryId)).toBe(0);
  });

  it('moves an outbox once even when a crash came between the copy and the unset', async () => {
    const { accountId, holdId, deliveryId, delivery } = await settleDiedAfterRecord(new Date());
    await raw.collection('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'charged', at: new Date() } as never);
    await raw.collection('webhook_deliveries').insertOne(delivery as never);
    expect((await claimIds()).filter((x) => x === deliveryId)).toEqual([deliveryId]);
    expect(await stored(deliveryId)).toBe(1);
  });
});
