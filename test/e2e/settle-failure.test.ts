// The bank says yes, then recording the charge fails inside the engine before
// anything commits (a real fault: a trigger refusing the VerifyTransaction
// insert on the SQL engines; on MongoDB the hold's outcome already decided
// the other way). The caller gets the 500 "outcome unknown" answer, nothing
// is charged, and recovery refunds the hold as interrupted; doctor is clean.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildUpstream } from '../../src/upstream/build.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';
import { startFakeKbank } from '../fakes/kbank-server.js';

/** A fault the engine raises when the settle writes; `lift` removes it. */
interface SettleFault {
  inject(holdId: string, accountId: string): Promise<void>;
  lift(): Promise<void>;
  close(): Promise<void>;
}

async function settleFault(engine: string, databaseUrl: string): Promise<SettleFault> {
  if (engine === 'sqlite') {
    // A writable handle of its own: the fault is a trigger added behind the store's back.
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    return {
      inject: async () =>
        void db.exec(`CREATE TRIGGER refuse_settle BEFORE INSERT ON verify_transactions BEGIN SELECT RAISE(ABORT, 'settle refused by the test'); END`),
      lift: async () => void db.exec('DROP TRIGGER refuse_settle'),
      close: async () => void db.close(),
    };
  }
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on('error', () => {});
    await client.connect();
    return {
      async inject() {
        await client.query(`CREATE FUNCTION refuse_settle() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'settle refused by the test'; END $$`);
        await client.query('CREATE TRIGGER refuse_settle BEFORE INSERT ON verify_transactions FOR EACH ROW EXECUTE FUNCTION refuse_settle()');
      },
      async lift() {
        await client.query('DROP TRIGGER refuse_settle ON verify_transactions');
        await client.query('DROP FUNCTION refuse_settle()');
      },
      close: () => client.end(),
    };
  }
  // MongoDB has no triggers, and FerretDB no validators or roles. What is
  // real on both: the hold's outcome document (unique per hold, first writer
  // wins) already says "refunded", as a recoverer racing the settle would
  // leave it. The settle loses that decision and withdraws its record.
  const client = new mongoose.mongo.MongoClient(databaseUrl, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  return {
    async inject(holdId, accountId) {
      await client.db().collection<{ _id: string; accountId: string; outcome: string; at: Date }>('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'refunded', at: new Date() });
    },
    lift: async () => {},
    close: () => client.close(),
  };
}

describe.each(testEngines())('settle failing before it commits on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  it('answers 500 "may have been charged", charges nothing, and recovery refunds the hold as interrupted', { timeout: 60_000 }, async () => {
    const bank = await startFakeKbank();
    cleanup.push(() => bank.close());
    const databaseUrl = await engine.databaseUrl();
    const upstream = () => buildUpstream([bank.config('kbank-settle')], { sandbox: () => new SandboxUpstream() });
    const app = await startApp({ upstream: upstream(), databaseUrl });
    let appStopped = false;
    cleanup.push(async () => appStopped || app.stop());
    const raw = await openRawBooks(databaseUrl);
    cleanup.push(() => raw.close());
    const fault = await settleFault(engine.name, databaseUrl);
    cleanup.push(() => fault.close());
    const { accountId, apiKey } = await app.account(10);

    const atBank = bank.holdNextVerify();
    const answer = app.post({ qrcode: sandboxQr() }, { 'x-api-key': apiKey, 'x-request-id': 'settle-refused-1' });
    await atBank.arrived;
    const holds = await raw.holdIds(accountId);
    expect(holds).toHaveLength(1);
    await fault.inject(holds[0]!, accountId);
    atBank.release();

    const res = await answer;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      status: 'error',
      message: 'the verification could not be recorded and may have been charged; do not retry: look it up by x-request-id first',
    });
    // Looked up as the answer says: not charged; the credit is still held.
    expect((await app.store.listVerifyTransactions({ requestId: 'settle-refused-1', limit: 10 })).items).toEqual([]);
    expect(await raw.holdIds(accountId)).toEqual(holds);
    expect(await raw.usage(accountId)).toBe(0);
    await app.stop();
    appStopped = true;

    // The next start finds the hold stale and refunds it.
    await fault.lift();
    const restarted = await startApp({ upstream: upstream(), databaseUrl, env: { HOLD_STALE_MS: '200' } });
    cleanup.push(() => restarted.stop());
    await eventually(async () => (await raw.holdIds(accountId)).length === 0);
    const account = await restarted.store.getAccount(accountId);
    expect({ credits: account!.credits, held: account!.held, usage: account!.usage }).toEqual({ credits: 10, held: 0, usage: 0 });
    const interrupted = await restarted.store.listRequestErrors({ accountId, kind: 'interrupted', limit: 10 });
    expect(interrupted.items.map((e) => e.id)).toEqual(holds);
    expect((await restarted.store.listVerifyTransactions({ accountId, limit: 10 })).items).toEqual([]);
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});
