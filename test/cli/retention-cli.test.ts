// `slipgate retention run` and `slipgate accounts erase-personal-data`, run as
// real processes against a real SQLite file.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/keys/api-key.js';
import type { Store } from '../../src/domain/ports/store.js';
import { openStore } from '../../src/store/open.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { runDoctor } from '../helpers/doctor.js';
import { openRawRecords } from '../helpers/raw-records.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

describe('slipgate retention run and accounts erase-personal-data', () => {
  const dir = tempDir();
  const databaseUrl = `sqlite:${join(dir.path, 'cli.db')}`;
  let a: string;
  let b: string;
  afterAll(() => dir.remove());

  const slipgate = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env } });
      return { code: 0, stdout, stderr: withoutDatabaseLine(stderr) };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: withoutDatabaseLine(e.stderr) };
    }
  };
  const snapshot = async () => {
    const raw = await openRawRecords(databaseUrl);
    try {
      return JSON.stringify([await raw.verifyTransactions(), await raw.requestErrorIds(), await raw.rechecks(), await raw.untouchable()]);
    } finally {
      await raw.close();
    }
  };

  beforeAll(async () => {
    const store = await openStore(databaseUrl);
    try {
      a = await seedAccount(store);
      b = await seedAccount(store);
      for (const [accountId, days] of [[a, 400], [a, 40], [a, 2], [b, 40], [b, 2]] as const) await verified(store, accountId, daysAgo(days));
      for (const [accountId, days] of [[a, 40], [b, 2], [null, 40]] as const) await failed(store, accountId, daysAgo(days));
      for (const [accountId, days, finished] of [[a, 40, true], [a, 40, false], [b, 2, true]] as const) await recheck(store, accountId, daysAgo(days), finished);
    } finally {
      await store.close();
    }
  });

  it('refuses a negative, zero or non-numeric period and changes nothing', { timeout: 120_000 }, async () => {
    const before = await snapshot();
    for (const bad of ['-1', '0', 'abc', '2.5']) {
      const r = await slipgate(['retention', 'run', '--older-than', bad]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`argument '${bad}' is invalid. must be a whole number of days from 1 to 36500, got "${bad}"`);
    }
    for (const bad of ['-7', 'month']) {
      const r = await slipgate(['retention', 'run'], { RETENTION_DAYS: bad });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`RETENTION_DAYS: must be a whole number of days from 0 to 36500, or "off"`);
    }
    const off = await slipgate(['retention', 'run'], { RETENTION_DAYS: 'off' });
    expect(off).toMatchObject({ code: 2, stderr: expect.stringContaining('retention is off') });
    expect(await snapshot()).toBe(before);
  });

  it('--dry-run reports the counts and changes nothing; the run then does exactly that', { timeout: 120_000 }, async () => {
    const before = await snapshot();
    const dry = await slipgate(['retention', 'run', '--older-than', '30', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ olderThanDays: 30, dryRun: true, redactedVerifications: 3, deletedFailures: 2, redactedRechecks: 1 });
    // For a person: Bangkok time like every listing, not UTC.
    const dryText = await slipgate(['retention', 'run', '--older-than', '30', '--dry-run']);
    expect(dryText.stdout).toMatch(/^Dry run, nothing changed: would redact 3 verifications and delete 2 failed requests created before \d{4}-\d\d-\d\d \d\d:\d\d:\d\d Bangkok time \(30 days\)\.\nWould also redact 1 finished re-check\.\n$/);
    expect(await snapshot()).toBe(before);
    // RETENTION_DAYS is the default period.
    const dryDefault = JSON.parse((await slipgate(['retention', 'run', '--dry-run', '--json'], { RETENTION_DAYS: '365' })).stdout);
    expect(dryDefault).toMatchObject({ olderThanDays: 365, redactedVerifications: 1, deletedFailures: 0, redactedRechecks: 0 });

    const ran = await slipgate(['retention', 'run', '--older-than', '30']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Redacted 3 verifications and deleted 2 failed requests created before .* \(30 days\)\.\nAlso redacted 1 finished re-check\.\nDatabase files: WAL checkpointed and truncated to 0 bytes; .*\.\n$/);
    const raw = await openRawRecords(databaseUrl);
    try {
      const records = await raw.verifyTransactions();
      expect(records.filter((r) => r.redactedAt).map((r) => r.createdAt < daysAgo(30))).toEqual([true, true, true]);
      expect(records.filter((r) => !r.redactedAt).every((r) => r.createdAt > daysAgo(30))).toBe(true);
      expect(await raw.requestErrorIds()).toHaveLength(1);
      // The finished re-check of 40 days ago; the open one of the same age is still at work.
      expect((await raw.rechecks()).map((r) => [r.accountId, r.finishedAt !== null, r.redactedAt !== null])).toEqual(
        expect.arrayContaining([[a, true, true], [a, false, false], [b, true, false]]),
      );
    } finally {
      await raw.close();
    }
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, discrepancies: [] });
  });

  it('erases one account now, records who did it, and leaves its books exact', { timeout: 120_000 }, async () => {
    expect(await slipgate(['accounts', 'erase-personal-data', 'acc_missing'])).toMatchObject({ code: 2, stderr: 'slipgate: account not found\n' });
    // It cannot be undone: not at a terminal (as here), it asks for --yes and erases nothing.
    const before = await snapshot();
    const unconfirmed = await slipgate(['accounts', 'erase-personal-data', b, '--reason', 'PDPA request #7']);
    expect(unconfirmed).toMatchObject({ code: 2, stderr: 'slipgate: not at a terminal: add --yes to erase without asking\n' });
    expect(await snapshot()).toBe(before);
    const erased = await slipgate(['accounts', 'erase-personal-data', b, '--reason', 'PDPA request #7', '--yes']);
    expect(erased.code).toBe(0);
    // b's 40-day-old record was redacted by the run above; its recent one and its recent failure go now.
    expect(erased.stdout).toMatch(new RegExp(`^Erased the personal data of ${b}: 1 verification redacted, 1 failed request deleted\\.\nAlso redacted 1 finished re-check\\.\nDatabase files: WAL checkpointed and truncated[^\n]*\\.\n$`));
    const store = await openStore(databaseUrl);
    try {
      const records = (await store.listVerifyTransactions({ accountId: b, limit: 10 })).items;
      expect(records.map((r) => r.redactedAt instanceof Date)).toEqual([true, true]);
      expect((await store.listRequestErrors({ accountId: b, limit: 10 })).items).toEqual([]);
      expect((await store.listVerifyTransactions({ accountId: a, limit: 10 })).items.filter((r) => !r.redactedAt)).toHaveLength(1);
      expect(await store.getAccount(b)).toMatchObject({ credits: 8, usage: 2 });
      const [event] = (await store.listAdminEvents({ targetId: b, limit: 1 })).items;
      expect(event).toMatchObject({ action: 'erasePersonalData', actor: expect.stringMatching(/^cli:/), reason: 'PDPA request #7', details: { redactedVerifications: 1, deletedFailures: 1, redactedRechecks: 1 } });
      const [run] = (await store.listAdminEvents({ limit: 10 })).items.filter((e) => e.action === 'runRetention');
      expect(run).toMatchObject({ actor: expect.stringMatching(/^cli:/), targetId: null, details: { olderThanDays: 30, redactedVerifications: 3, deletedFailures: 2, redactedRechecks: 1 } });
    } finally {
      await store.close();
    }
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, discrepancies: [] });
  });
});

async function seedAccount(store: Store): Promise<string> {
  const id = newId('acc');
  await store.createAccount({ id, name: 'ร้านกาแฟ', createdAt: daysAgo(500) });
  await store.applyLedgerEntry({ id: newId('led'), accountId: id, kind: 'initial', delta: 10, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: daysAgo(500) });
  return id;
}

async function verified(store: Store, accountId: string, createdAt: Date): Promise<void> {
  const id = newId('req');
  const transactionId = `TX${id.slice(-10).toUpperCase()}`;
  await store.holdCredit({ id, accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
  await store.settleHold({
    id, accountId, keyId: 'key_test', requestId: id, qrcode: slipQr('004', transactionId), transactionId, amount: 50, sendingBank: '004', receivingBank: '014',
    upstream: 'sandbox', latencyMs: 3, response: { amount: 50, senderName: 'นาย สมชาย ใ', rawData: { sender: 'x' } } as never, createdAt,
  });
}

async function failed(store: Store, accountId: string | null, createdAt: Date): Promise<void> {
  const id = newId('req');
  await store.insertRequestError({ id, accountId, keyId: null, requestId: id, qrcode: null, transactionId: null, sendingBank: null, kind: 'invalid_qr', message: 'invalid slip QR code: x', upstream: null, latencyMs: null, createdAt });
}

/** A slip kept for re-checks at `createdAt`, its QR and the bank's answer naming people; finished (verified) or still open. */
async function recheck(store: Store, accountId: string, createdAt: Date, finished: boolean): Promise<void> {
  const id = newId('req');
  const transRef = `TR${id.slice(-10).toUpperCase()}`;
  const deadline = new Date(createdAt.getTime() + 600_000);
  await store.createRecheck(
    { id, accountId, keyId: 'key_test', requestId: id, paymentRequestId: null, qrcode: slipQr('004', transRef), sendingBank: '004', transRef, options: null, createdAt, deadline, nextAttemptAt: deadline, attempts: 0, attemptId: null, outcome: null, finishedAt: null, result: null, lineChannelId: null, lineUserId: null },
    100,
  );
  if (finished) await store.finishRecheck(id, { outcome: 'verified', at: deadline, result: JSON.stringify({ verificationId: id, data: { amount: 50, senderName: 'นาย สมชาย ใ' } }) });
}

/** Every command that opens the store names it first on stderr (test/cli/store-choice.test.ts checks that line); the rest is this command's. */
function withoutDatabaseLine(stderr: string): string {
  return stderr.replace(/^slipgate: using database [^\n]*\n/, '');
}
