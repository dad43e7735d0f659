// The server's own retention pass: it runs at startup and every interval,
// on the instance holding the first live lease only; another instance takes
// over when that one stops. On SQLite, two servers on one file.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/keys/api-key.js';
import { removePersonalData } from '../../src/domain/personal-data/retention.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runDoctor } from '../helpers/doctor.js';
import { openRawRecords, type RawRecords } from '../helpers/raw-records.js';
import { sqliteRow } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';

const DAY = 86_400_000;
/** A name only the old records carry (the sandbox's answers use others). */
const OLD_NAME = 'นาง เก่าแก่ ลบทิ้ง';
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/** Polls the database until `check` holds: waits for the server's pass, not for a fixed time. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('retention run by the server', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'retention.db')}`;
  const apps: TestApp[] = [];
  let raw: RawRecords | undefined;
  afterAll(async () => {
    await raw?.close();
    for (const app of apps) await app.stop().catch(() => {});
    dir.remove();
  });

  const start = async () => {
    const app = await startApp({ databaseUrl, env: { RETENTION_DAYS: '1', RETENTION_INTERVAL_MINUTES: '60' } });
    apps.push(app);
    return app;
  };
  const redactedAt = async (id: string) => (await raw!.verifyTransactions()).find((r) => r.id === id)?.redactedAt ?? null;

  it('runs at startup and on the first live lease only; the next instance takes over; the old slip stays a duplicate', { timeout: 90_000 }, async () => {
    // Records from before any server ran: two days old, one day is the period.
    const store = await openStore(databaseUrl);
    const accountId = newId('acc');
    await store.createAccount({ id: accountId, name: 'Shop', createdAt: daysAgo(10) });
    await store.applyLedgerEntry({ id: newId('led'), accountId, kind: 'initial', delta: 10, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: daysAgo(10) });
    const oldId = newId('req');
    await store.holdCredit({ id: oldId, accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
    await store.settleHold({
      id: oldId, accountId, keyId: 'key_test', requestId: oldId, qrcode: 'NOT A SLIP QR: somchai', transactionId: 'TXOLD1', amount: 10, sendingBank: '004', receivingBank: '014',
      upstream: 'sandbox', latencyMs: 5, response: { senderName: 'นาย สมชาย ใ', amount: 10 } as never, createdAt: daysAgo(2),
    });
    await store.close();
    raw = await openRawRecords(databaseUrl);

    const first = await start();
    await until(async () => (await redactedAt(oldId)) !== null, 'the startup pass to redact the old record');
    expect((await raw.verifyTransactions())[0]).toMatchObject({ id: oldId, qrcode: '', response: { senderName: '', amount: 10 }, amount: 10 });

    // A second instance on the same database: not its turn while the first lives.
    const second = await start();
    const { apiKey } = await second.account(5);
    const qr = sandboxQr({ amount: 120 });
    expect((await second.verify(apiKey, qr)).body.status).toBe('success');
    const recent = (await raw.verifyTransactions()).find((r) => r.id !== oldId)!;
    const agedAt = daysAgo(3);
    await raw.setVerifyTransactionTime(recent.id, agedAt);
    await second.store.insertRequestError({ id: newId('req'), accountId: null, keyId: null, requestId: 'old-failure', qrcode: null, transactionId: null, sendingBank: null, kind: 'invalid_api_key', message: 'invalid api key', upstream: null, latencyMs: null, createdAt: daysAgo(2) });
    expect(await second.retention.runOnce()).toBeNull();
    expect(await redactedAt(recent.id)).toBeNull();
    expect(await raw.requestErrorIds()).toHaveLength(1);

    expect(await first.retention.runOnce()).toEqual({ personalData: { redacted: 1, deleted: 1, rechecks: 0, dryRun: false, purge: { complete: true, detail: expect.any(String) } }, webhookDeliveries: 0 });
    expect(await redactedAt(recent.id)).toBeInstanceOf(Date);
    expect(await raw.requestErrorIds()).toEqual([]);

    // Verified three days ago, redacted since: still a duplicate for its account.
    const again = await second.post({ qrcode: qr, checks: { duplicate: true } }, { 'x-api-key': apiKey });
    expect(again.body.checks.duplicate).toEqual({ passed: false, seen: true, count: 1, firstVerifiedAt: agedAt.toISOString() });

    // The first stops (its lease ends): the second's turn.
    await first.stop();
    const newer = (await raw.verifyTransactions()).find((r) => r.id !== oldId && r.id !== recent.id)!;
    await raw.setVerifyTransactionTime(newer.id, daysAgo(2));
    expect(await second.retention.runOnce()).toEqual({ personalData: { redacted: 1, deleted: 0, rechecks: 0, dryRun: false, purge: { complete: true, detail: expect.any(String) } }, webhookDeliveries: 0 });
    expect(await redactedAt(newer.id)).toBeInstanceOf(Date);

    await second.stop();
    const doctor = await runDoctor(databaseUrl);
    expect(doctor).toMatchObject({ code: 0, discrepancies: [] });
  });

  it('a pass over thousands of old records runs in batches, and verifications finish between two of them', { timeout: 90_000 }, async () => {
    const file = join(dir.path, 'busy.db');
    const url = `sqlite:${file}`;
    await (await openStore(url)).close();
    // 2,000 old records of one account, written directly (with books that add up): a writable handle of its own.
    const db = new Database(file);
    // As slipgate's own connections write: without it, page splits leave stale copies of rows in free space (docs/personal-data.md).
    db.pragma('secure_delete = ON');
    const accountId = newId('acc');
    const old = daysAgo(30).getTime();
    db.transaction(() => {
      db.prepare('INSERT INTO accounts (id, name, credits, usage, created_at) VALUES (?, ?, 0, 2000, ?)').run(accountId, 'Old shop', old);
      db.prepare("INSERT INTO credit_ledger (id, account_id, kind, delta, reason, actor, created_at) VALUES (?, ?, 'initial', 2000, 'test', 'test', ?)").run(newId('led'), accountId, old);
      const insert = db.prepare(`INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
        VALUES (?, ?, 'key_old', ?, '', ?, 10, '004', '014', 'sandbox', 3, '{"senderName":"${OLD_NAME}","rawData":{"a":1}}', ?)`);
      for (let i = 0; i < 2000; i++) {
        const id = newId('req');
        insert.run(id, accountId, id, `TXOLD${i}`, old + i);
      }
    })();
    db.close();

    // The server's periodic pass is off here: this test runs the same pass
    // (domain/retention.ts, default batch size) on the server's store, and
    // in what happens between its batches, verifications through HTTP.
    const app = await startApp({ databaseUrl: url, env: { RETENTION_DAYS: 'off' } });
    apps.push(app);
    const { apiKey } = await app.account(60);
    const events: string[] = [];
    const verify = async (label: string) => {
      const answer = await app.verify(apiKey, sandboxQr());
      events.push(`${label} ${answer.body.status}`);
    };
    const now = new Date();
    // Some are in flight when the pass starts; more start after its first batch and are awaited before its second.
    const inFlight = Array.from({ length: 20 }, () => verify('beside'));
    const result = await removePersonalData(app.store, { createdBefore: daysAgo(7) }, {
      now,
      onBatch: async ({ redacted }) => {
        const first = !events.some((e) => e.startsWith('batch'));
        events.push(`batch ${redacted}`);
        if (first) await Promise.all(Array.from({ length: 20 }, () => verify('between')));
      },
    });
    await Promise.all(inFlight);

    expect(result).toMatchObject({ redacted: 2000, deleted: 0, purge: { complete: true } });
    // Many batches of equal size, not one.
    const batches = events.filter((e) => e.startsWith('batch')).map((e) => Number(e.split(' ')[1]));
    expect(batches.length).toBeGreaterThanOrEqual(4);
    expect(batches).toEqual(batches.map((_, i) => (i + 1) * batches[0]!));
    expect(batches.at(-1)).toBe(2000);
    // Twenty verifications answered after the first batch and before the second: the pass holds nothing between batches.
    const first = events.indexOf(`batch ${batches[0]}`);
    const second = events.indexOf(`batch ${batches[1]}`);
    expect(events.slice(first + 1, second).filter((e) => e === 'between success')).toHaveLength(20);
    expect(events.filter((e) => !e.startsWith('batch')).map((e) => e.split(' ')[1])).toEqual(Array.from({ length: 40 }, () => 'success'));

    const left = sqliteRow(file, `SELECT count(*) AS n FROM verify_transactions WHERE account_id = ? AND (response LIKE '%${OLD_NAME}%' OR redacted_at IS NULL)`, accountId);
    const fresh = sqliteRow(file, 'SELECT count(*) AS n FROM verify_transactions WHERE redacted_at IS NULL');
    expect(left).toEqual({ n: 0 });
    expect(fresh).toEqual({ n: 40 });
    // Nor in the bytes of the file or its WAL, while the server still has them open.
    const copies = (path: string) => readFileSync(path).toString('utf8').split(OLD_NAME).length - 1;
    expect(copies(file) + copies(`${file}-wal`)).toBe(0);
    await app.stop();
    expect(await runDoctor(url)).toMatchObject({ code: 0, discrepancies: [] });
  });
});
