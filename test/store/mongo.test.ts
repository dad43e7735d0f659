import mongoose from 'mongoose';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { createMongoDatabase, MONGO_CONCURRENCY_LIMITATION } from '../helpers/mongo.js';
import { storeContract } from './contract.js';

storeContract(
  'mongo',
  async () => {
    const db = createMongoDatabase();
    const store = new MongoStore(db.url);
    await store.migrate();
    // A client of our own: the probe reads what the server really holds.
    const client = new mongoose.mongo.MongoClient(db.url, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    const c = client.db(db.name);
    const newestLast = { createdAt: 1, _id: 1 } as const;
    return {
      store,
      probe: {
        accountName: async (id) => (await c.collection<{ _id: string; name: string }>('accounts').findOne({ _id: id }))?.name ?? null,
        balance: async (id) => {
          const a = await c.collection<{ _id: string; credits: number; usage: number }>('accounts').findOne({ _id: id });
          return a ? { credits: a.credits, usage: a.usage } : null;
        },
        holdIds: async (id) => {
          const a = await c.collection<{ _id: string; holds: { _id: string; createdAt: Date }[] }>('accounts').findOne({ _id: id });
          return [...(a?.holds ?? [])].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime()).map((h) => h._id);
        },
        countVerifyTransactions: (id) => c.collection('verify_transactions').countDocuments({ accountId: id }),
        verifyTransactionIds: async (id) =>
          (await c.collection<{ _id: string; requestId: string }>('verify_transactions').find({ accountId: id }).sort({ _id: 1 }).toArray()).map((r) => ({
            id: r._id,
            requestId: r.requestId,
          })),
        requestErrorIds: async (id) =>
          (await c.collection<{ _id: string; kind: string }>('request_errors').find({ accountId: id }).sort({ _id: 1 }).toArray()).map((r) => ({ id: r._id, kind: r.kind })),
        requestErrorKinds: async (id) =>
          (await c.collection<{ kind: string }>('request_errors').find({ accountId: id }).sort(newestLast).toArray()).map((r) => r.kind),
        // Every stored entry, whatever its state: a finished call leaves no pending or refused one behind.
        ledgerDeltas: async (id) =>
          (await c.collection<{ delta: number }>('credit_ledger').find({ accountId: id }).sort(newestLast).toArray()).map((r) => r.delta),
        storedKey: async (id) => c.collection<{ _id: string }>('api_keys').findOne({ _id: id }),
        holdInstanceIds: async (id) => {
          const a = await c.collection<{ _id: string; holds: { createdAt: Date; instanceId?: string | null }[] }>('accounts').findOne({ _id: id });
          return [...(a?.holds ?? [])].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime()).map((h) => h.instanceId ?? null);
        },
        leaseExpiry: async (id) => (await c.collection<{ _id: string; expiresAt: Date }>('instance_leases').findOne({ _id: id }))?.expiresAt ?? null,
        // Moved deliveries and those still riding in a verification's outbox.
        webhookDeliveryIds: async (id) => {
          const moved = await c.collection<{ _id: string }>('webhook_deliveries').find({ accountId: id }).toArray();
          const outboxes = await c.collection<{ outbox?: { _id: string }[] }>('verify_transactions').find({ accountId: id, outboxAt: { $exists: true } }).toArray();
          return [...new Set([...moved.map((d) => d._id), ...outboxes.flatMap((v) => (v.outbox ?? []).map((d) => d._id))])].sort();
        },
        storedWebhookSecret: async (id) => (await c.collection<{ _id: string; secret: string }>('webhook_endpoints').findOne({ _id: id }))?.secret ?? null,
        storedRecheck: async (id) => {
          const d = await c
            .collection<{ _id: string; attempts: number; nextAttemptAt: Date; attemptId: string | null; outcome: string | null; finishedAt: Date | null; qrcode: string; lineChannelId: string | null; lineUserId: string | null }>('rechecks')
            .findOne({ _id: id });
          return d
            ? { attempts: d.attempts, nextAttemptAt: d.nextAttemptAt, attemptId: d.attemptId, outcome: d.outcome, finishedAt: d.finishedAt, qrcode: d.qrcode, lineChannelId: d.lineChannelId, lineUserId: d.lineUserId }
            : null;
        },
        slipIndexed: async () => (await c.collection('rechecks').indexes()).some((i) => Object.keys(i.key).join(',') === 'accountId,transRef,finishedAt'),
        storedLineSecrets: async (id) => {
          const d = await c.collection<{ _id: string; secret: string; accessToken: string }>('line_channels').findOne({ _id: id });
          return d ? { secret: d.secret, accessToken: d.accessToken } : null;
        },
        expireLease: async (id) => void (await c.collection<{ _id: string }>('instance_leases').updateOne({ _id: id }, { $set: { expiresAt: new Date(0) } })),
        insertSuccessRecord: async (accountId, holdId) =>
          void (await c.collection('verify_transactions').insertOne({
            _id: holdId,
            accountId,
            keyId: 'key_test',
            requestId: holdId,
            qrcode: 'qr',
            transactionId: 'TX',
            amount: 1,
            sendingBank: '004',
            receivingBank: '014',
            upstream: 'sandbox',
            latencyMs: 1,
            response: {},
            createdAt: new Date(),
          } as never)),
        storedReceivers: async (id) =>
          (
            await c
              .collection<{ _id: string; number: string; bankCode: string | null; active: boolean }>('receivers')
              .find({ accountId: id })
              .sort(newestLast)
              .toArray()
          ).map((r) => ({ id: r._id, number: r.number, bankCode: r.bankCode, active: r.active })),
        storedReceiverPolicy: async (id) => {
          const a = await c.collection<{ _id: string; receiverPolicy?: string }>('accounts').findOne({ _id: id });
          return a ? (a.receiverPolicy ?? null) : null;
        },
        storedCreditsLow: async (id) => {
          const a = await c.collection<{ _id: string; creditsLowAt?: number | null; creditsLowNotified?: boolean }>('accounts').findOne({ _id: id });
          return a ? { at: a.creditsLowAt ?? null, notified: a.creditsLowNotified === true } : null;
        },
        storedPayment: async (id) => {
          const p = await c.collection<{ _id: string; status: string; paidBy?: { verificationId: string } | null }>('payment_requests').findOne({ _id: id });
          return p ? { status: p.status, paidVerificationId: p.paidBy?.verificationId ?? null } : null;
        },
        storedVerdict: async (id) => {
          const v = await c.collection<{ _id: string; payment?: { requestId: string; status: string; reason?: string | null } | null }>('verify_transactions').findOne({ _id: id });
          if (!v) return null;
          return { requestId: v.payment?.requestId ?? null, status: v.payment?.status ?? null, reason: v.payment?.reason ?? null };
        },
      },
      dispose: async () => {
        await client.close();
        await store.close();
        await db.drop();
      },
    };
  },
  { concurrencyLimitation: MONGO_CONCURRENCY_LIMITATION },
);
