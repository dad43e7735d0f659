// A slip that pays a payment request is charged and pays it in one write:
// when the payment's part fails inside the engine (a real fault: a trigger
// refusing the request's update), the charge goes with it. The caller gets
// the 500 "outcome unknown" answer, nothing is charged, the request is still
// pending, recovery refunds the hold, and the customer's resend pays the
// request, charged once in all. On the SQL engines the two are one
// transaction; MongoDB has no triggers and no multi-document transactions:
// its crash window (charged, not yet paid) is finished by recovery, checked
// in test/store/mongo-crash.test.ts.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';
import { create, shop, slipFor } from '../payments/helpers.js';

/** A fault the engine raises when a payment request is marked paid; `lift` removes it. */
interface PaymentFault {
  inject(): Promise<void>;
  lift(): Promise<void>;
  close(): Promise<void>;
}

async function paymentFault(engine: string, databaseUrl: string): Promise<PaymentFault> {
  if (engine === 'sqlite') {
    // A writable handle of its own: the fault is a trigger added behind the store's back.
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    return {
      inject: async () =>
        void db.exec(`CREATE TRIGGER refuse_paying BEFORE UPDATE ON payment_requests WHEN NEW.status = 'paid' BEGIN SELECT RAISE(ABORT, 'payment refused by the test'); END`),
      lift: async () => void db.exec('DROP TRIGGER refuse_paying'),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  return {
    async inject() {
      await client.query(`CREATE FUNCTION refuse_paying() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'payment refused by the test'; END $$`);
      await client.query(`CREATE TRIGGER refuse_paying BEFORE UPDATE ON payment_requests FOR EACH ROW WHEN (NEW.status = 'paid') EXECUTE FUNCTION refuse_paying()`);
    },
    async lift() {
      await client.query('DROP TRIGGER refuse_paying ON payment_requests');
      await client.query('DROP FUNCTION refuse_paying()');
    },
    close: () => client.end(),
  };
}

const sqlEngines = testEngines().filter((e) => e.name !== 'mongo');

describe.each(sqlEngines)('a payment failing inside the settle on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  it('takes the charge back with it: 500, nothing charged, the request pending; the resend pays it, charged once', { timeout: 60_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    const app = await startApp({ databaseUrl });
    let appStopped = false;
    cleanup.push(async () => appStopped || app.stop());
    const raw = await openRawBooks(databaseUrl);
    cleanup.push(() => raw.close());
    const fault = await paymentFault(engine.name, databaseUrl);
    cleanup.push(() => fault.close());
    const merchant = await shop(app, 10);
    const request = (await create(app, merchant, { amount: 250, reference: 'order-crash-1' })).body.data;
    const qrcode = slipFor({ amount: 250 });

    await fault.inject();
    const res = await app.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey, 'x-request-id': 'pay-refused-1' });
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/could not be recorded/);
    // Looked up as the answer says: not charged, not paid; the credit is still held.
    expect((await app.store.listVerifyTransactions({ requestId: 'pay-refused-1', limit: 10 })).items).toEqual([]);
    expect(await raw.usage(merchant.accountId)).toBe(0);
    expect(await raw.holdIds(merchant.accountId)).toHaveLength(1);
    expect((await app.store.getPaymentRequest(request.id))?.status).toBe('pending');
    await app.stop();
    appStopped = true;

    await fault.lift();
    const restarted = await startApp({ databaseUrl, env: { HOLD_STALE_MS: '200' } });
    cleanup.push(() => restarted.stop());
    await eventually(async () => (await raw.holdIds(merchant.accountId)).length === 0);
    expect((await restarted.store.getAccount(merchant.accountId))?.credits).toBe(10);

    const resent = await restarted.post({ qrcode, paymentRequest: request.id }, { 'x-api-key': merchant.apiKey });
    expect(resent.body.paymentRequest).toEqual({ id: request.id, status: 'paid' });
    const account = await restarted.store.getAccount(merchant.accountId);
    expect({ credits: account!.credits, usage: account!.usage }).toEqual({ credits: 9, usage: 1 });
    const verifications = (await restarted.store.listVerifyTransactions({ accountId: merchant.accountId, limit: 10 })).items;
    expect(verifications).toHaveLength(1);
    expect((await restarted.store.getPaymentRequest(request.id))?.paidBy?.verificationId).toBe(verifications[0]!.id);
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});
