// Leases, end to end: two serving processes share one store and one account
// with few credits; one is SIGKILLed while its verifications wait at the
// bank. With default lease settings its lease expires after three missed
// beats and the surviving process releases the dead one's holds at once.
// HOLD_STALE_MS is set far beyond the test's own timeout, so the age rule
// cannot be what frees them: only the lease can make the test pass. The
// survivor's own verifications, held at the same moment, are never touched
// and are charged once each.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startGatedKbank, type GatedKbank } from '../fakes/gated-kbank.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { testEngines } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';

const CREDITS = 4;
/** The test's own timeout bounds every wait; generous, since child processes start slowly on a busy machine. */
const TEST_TIMEOUT_MS = 120_000;
/** Far beyond TEST_TIMEOUT_MS: the age rule never fires during a test. */
const HOLD_STALE_MS = '600000';
/** Beats of 1.5 s: a lease lives 4.5 s (default 6 s), so a dead process's expires sooner; a live one under load still renews in time. */
const LEASE_HEARTBEAT_MS = '1500';
/** Longer than any wait here: the test's own timeout is the bound. */
const UNBOUNDED = 2 * TEST_TIMEOUT_MS;

const instanceOf = (child: Child) => child.logs.find((l) => l.msg === 'slipgate listening')?.instanceId as string;

describe.each(testEngines())('a killed process\u2019s held credits come back by lease on %s', (engine) => {
  const children: Child[] = [];
  const banks: GatedKbank[] = [];
  let store: Store | undefined;
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await Promise.all(banks.map((b) => b.close()));
    await store?.close();
    await engine.dispose();
  });

  it('releases the dead process\u2019s holds while the live one\u2019s in-flight verifications are charged once', { timeout: TEST_TIMEOUT_MS }, async () => {
    let databaseUrl = await engine.databaseUrl();
    // Several helpers share PostgreSQL's 100 connections: small pools.
    if (engine.name === 'postgres') databaseUrl += `${databaseUrl.includes('?') ? '&' : '?'}pool_max=4`;
    store = await openStore(databaseUrl);
    const db = store;
    const { account, apiKey } = await new AccountService(db).createAccount({ name: 'Lease Shop', credits: CREDITS, actor: 'test' });
    const holds = () => db.listHolds(account.id);

    const [bankA, bankB] = await Promise.all([startGatedKbank(), startGatedKbank()]);
    banks.push(bankA!, bankB!);
    // The shorter lease above; the bank budget is long, so answers can wait.
    const env = (bank: GatedKbank) => ({ DATABASE_URL: databaseUrl, UPSTREAMS: JSON.stringify([bank.config()]), UPSTREAM_TIMEOUT_MS: '30000', HOLD_STALE_MS, LEASE_HEARTBEAT_MS });
    const [a, b] = await Promise.all([spawnSlipgate(env(bankA!)), spawnSlipgate(env(bankB!))]);
    children.push(a!, b!);
    const [doomed, survivor] = [instanceOf(a!), instanceOf(b!)];
    expect(doomed).toMatch(/^ins_/);
    expect(survivor).toMatch(/^ins_/);

    // Two verifications in flight on each process, started one after the
    // other (FerretDB's updates of one document must not overlap, see
    // MONGO_CONCURRENCY_LIMITATION): each waits at its bank, its credit held.
    const inFlight: Promise<Awaited<ReturnType<typeof postVerify>> | Error>[] = [];
    for (const [i, [child, bank]] of ([[a, bankA], [b, bankB], [a, bankA], [b, bankB]] as const).entries()) {
      inFlight.push(postVerify(child!.publicUrl, apiKey.secret, sandboxQr()).catch((e: Error) => e));
      await eventually(async () => (await holds()).length === i + 1 && bank!.waiting() === Math.floor(i / 2) + 1, UNBOUNDED);
    }
    const before = await holds();
    const heldBy = (id: string) => before.filter((h) => h.instanceId === id).map((h) => h.id).sort();
    expect(heldBy(doomed)).toHaveLength(2);
    expect(heldBy(survivor)).toHaveLength(2);
    expect(await db.getAccount(account.id)).toMatchObject({ credits: 0, held: 4, usage: 0 });
    // The credits are the account's, but held: a new verification is refused.
    const refused = await postVerify(b!.publicUrl, apiKey.secret, sandboxQr());
    expect(refused.body).toStrictEqual({ status: 'error', code: 1023, message: 'insufficient fund' });

    a!.proc.kill('SIGKILL');
    expect(await a!.exited).toBeNull();
    const lost = await Promise.all(inFlight.filter((_, i) => i % 2 === 0));
    for (const r of lost) expect(r).toBeInstanceOf(Error);

    // The survivor recovers the dead lease's holds; its own stay held.
    await eventually(async () => !(await holds()).some((h) => h.instanceId === doomed), UNBOUNDED);
    const after = await holds();
    expect(after.map((h) => h.id).sort()).toEqual(heldBy(survivor));
    expect(await db.getAccount(account.id)).toMatchObject({ credits: 2, held: 2, usage: 0 });
    const interrupted = await db.listRequestErrors({ accountId: account.id, kind: 'interrupted', limit: 10 });
    expect(interrupted.items.map((r) => r.id).sort()).toEqual(heldBy(doomed));

    // The survivor's verifications come back from the bank and are charged.
    if (engine.concurrencyLimitation) {
      for (let left = 2; left > 0; left--) {
        bankB!.releaseOne();
        await eventually(async () => (await holds()).length === left - 1, UNBOUNDED);
      }
    }
    bankB!.open();
    const answered = await Promise.all(inFlight.filter((_, i) => i % 2 === 1));
    for (const r of answered) expect(r).toMatchObject({ status: 200, body: { status: 'success' } });

    // The recovered credits are usable again.
    for (let i = 0; i < 2; i++) {
      expect((await postVerify(b!.publicUrl, apiKey.secret, sandboxQr())).body.status).toBe('success');
    }
    expect((await postVerify(b!.publicUrl, apiKey.secret, sandboxQr())).body).toMatchObject({ code: 1023 });

    expect(await db.getAccount(account.id)).toMatchObject({ credits: 0, held: 0, usage: CREDITS });
    const charged = (await db.listVerifyTransactions({ accountId: account.id, limit: 10 })).items.map((r) => r.id);
    expect(charged).toHaveLength(CREDITS);
    for (const id of heldBy(survivor)) expect(charged.filter((c) => c === id)).toHaveLength(1);
    for (const id of heldBy(doomed)) expect(charged).not.toContain(id);
    const failures = (await db.listRequestErrors({ accountId: account.id, limit: 20 })).items;
    expect(failures.filter((f) => heldBy(survivor).includes(f.id))).toEqual([]);
    expect((await reconcileAccount(db, account.id)).problems).toEqual([]);
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });

    // A graceful stop ends the survivor's lease.
    b!.proc.kill('SIGTERM');
    expect(await b!.exited).toBe(0);
    await eventually(async () => b!.logs.some((l) => l.msg === 'lease ended' && l.instanceId === survivor), UNBOUNDED);
  });
});

// SIGSTOP instead of SIGKILL: the process comes back after its lease was
// taken over. On SQLite only: what differs between engines (the lease
// clock, concurrent recovery) is covered by the store contract suite.
describe('a paused process whose lease was taken over', () => {
  const children: Child[] = [];
  const banks: GatedKbank[] = [];
  const dir = tempDir();
  let store: Store | undefined;
  afterAll(async () => {
    for (const c of children) {
      c.proc.kill('SIGCONT');
      c.proc.kill('SIGKILL');
    }
    await Promise.all(children.map((c) => c.exited));
    await Promise.all(banks.map((b) => b.close()));
    await store?.close();
    dir.remove();
  });

  it('cannot charge the hold recovery released, starts a new lease and serves on', { timeout: TEST_TIMEOUT_MS }, async () => {
    const databaseUrl = `sqlite:${join(dir.path, 'pause.db')}`;
    store = await openStore(databaseUrl);
    const db = store;
    const { account, apiKey } = await new AccountService(db).createAccount({ name: 'Pause Shop', credits: 2, actor: 'test' });
    const holds = () => db.listHolds(account.id);
    const bank = await startGatedKbank();
    banks.push(bank);
    const env = { DATABASE_URL: databaseUrl, UPSTREAMS: JSON.stringify([bank.config()]), UPSTREAM_TIMEOUT_MS: '30000', HOLD_STALE_MS, LEASE_HEARTBEAT_MS };
    const [paused, other] = await Promise.all([spawnSlipgate(env), spawnSlipgate({ DATABASE_URL: databaseUrl, HOLD_STALE_MS, LEASE_HEARTBEAT_MS })]);
    children.push(paused!, other!);
    const lostLease = instanceOf(paused!);

    const pending = postVerify(paused!.publicUrl, apiKey.secret, sandboxQr());
    await eventually(async () => (await holds()).length === 1 && bank.waiting() === 1, UNBOUNDED);
    const [held] = await holds();
    expect(held!.instanceId).toBe(lostLease);
    paused!.proc.kill('SIGSTOP');

    // The other process sees the lease expire and releases the hold.
    await eventually(async () => (await holds()).length === 0, UNBOUNDED);
    expect(await db.getAccount(account.id)).toMatchObject({ credits: 2, held: 0, usage: 0 });

    // The bank says yes while the process is stopped; it reads the answer on waking.
    bank.open();
    paused!.proc.kill('SIGCONT');
    const answer = await pending;
    expect(answer.status).toBe(500);
    expect(answer.body.message).toMatch(/may have been charged/);
    // It was not: the lookup shows the interrupted failure and no charge.
    const failures = await db.listRequestErrors({ accountId: account.id, limit: 10 });
    expect(failures.items.map((f) => [f.id, f.kind])).toEqual([[held!.id, 'interrupted']]);
    expect((await db.listVerifyTransactions({ accountId: account.id, limit: 10 })).items).toEqual([]);

    // Its next heartbeat finds the lease gone and starts a new one.
    await eventually(async () => paused!.logs.some((l) => l.msg === 'lease expired while this process was alive; its holds count as abandoned; starting a new lease' && l.lostInstanceId === lostLease), UNBOUNDED);
    const fresh = () => paused!.logs.filter((l) => l.msg === 'lease started').map((l) => l.instanceId as string).find((id) => id !== lostLease);
    await eventually(async () => fresh() !== undefined, UNBOUNDED);
    const next = postVerify(paused!.publicUrl, apiKey.secret, sandboxQr());
    expect((await next).body.status).toBe('success');
    expect(await db.getAccount(account.id)).toMatchObject({ credits: 1, held: 0, usage: 1 });
    expect((await reconcileAccount(db, account.id)).problems).toEqual([]);
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});
