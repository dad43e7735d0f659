// Erasure on request through GraphQL (admin role): an account's personal
// data goes now, from every record whatever its age; its credits, ledger and
// usage stay exact, doctor reconciles, and the slips it verified are still
// reported as duplicates. On SQLite (the store contract proves the engines).
// And on disk: none of the erased values is left in the bytes of the
// database file, its WAL, or a backup taken afterwards: the account's
// finished re-checks (the slip's QR text, the bank's answer, the receiver
// asked for) are redacted too.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/keys/api-key.js';
import type { VerifiedSlip } from '../../src/domain/types.js';
import { sandboxQr, slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { runDoctor } from '../helpers/doctor.js';
import { openRawRecords } from '../helpers/raw-records.js';
import { tempDir } from '../helpers/temp.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);

/** The erased person's values, found nowhere else in the database: names (Thai and English), accounts, a proxy, QR text. */
const ERASED = {
  senderName: 'นางสาว ลบได้ จริงแท้',
  senderNameEN: 'MISS LOBDAI JINGTAE',
  senderBankAccountNumber: 'xxx-x-x7391-x',
  receiverName: 'บจก. ลบแล้ว จำกัด',
  receiverNameEN: 'LOBLAEW COMPANY LIMITED',
  receiverBankAccountNumber: 'xxx-x-x8642-x',
  receiverPromptpay: 'x-xxxx-xxxx5-57-3',
  qrText: 'PAYER:LOBDAI JINGTAE;ACCOUNT:7391-004-2',
};

/** `large`: a bank answer bigger than a page, so SQLite keeps it in overflow pages, which a redaction frees. */
function erasedSlip(transactionId: string, large = false): VerifiedSlip {
  const { qrText: _qr, ...people } = ERASED;
  return {
    amount: 777.25,
    dateTime: '2026-01-01T10:00:00+07:00',
    timestamp: 1767236400,
    transactionId,
    ...people,
    senderBank: 'KBANK',
    senderBankCode: '004',
    receiverBank: 'SCB',
    receiverBankCode: '014',
    receiverProxyType: 'NATID',
    rawData: {
      transRef: transactionId,
      sender: { displayName: ERASED.senderName, name: ERASED.senderNameEN },
      receiver: { displayName: ERASED.receiverName, name: ERASED.receiverNameEN },
      ...(large ? { memo: `${'x'.repeat(9000)} ${ERASED.senderName} ${ERASED.senderBankAccountNumber}` } : {}),
    },
  };
}

/** How often each erased value occurs in the raw bytes of `file` (0 for a missing file). */
function occurrences(file: string): Record<string, number> {
  const bytes = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
  const found: Record<string, number> = {};
  for (const [field, value] of Object.entries(ERASED)) {
    const needle = Buffer.from(value, 'utf8');
    let n = 0;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) n++;
    if (n > 0) found[field] = n;
  }
  return found;
}

const ERASE = `mutation ($id: ID!, $reason: String) {
  erasePersonalData(accountId: $id, reason: $reason) { redactedVerifications deletedFailures redactedRechecks account { id credits usage } }
}`;
const RECORDS = `query ($id: ID!) {
  verifyTransactions(filter: { accountId: $id }) { nodes { id qrcode transactionId amount sendingBank redactedAt response } }
  requestErrors(filter: { accountId: $id }) { nodes { id } }
}`;

describe('erasePersonalData (GraphQL)', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp();
  });
  afterAll(() => app?.stop());

  it('erases one account at once, as ADMIN only, and keeps its books exact', { timeout: 60_000 }, async () => {
    const a = await app.account(5);
    const b = await app.account(5);
    const slip = sandboxQr({ amount: 250 });
    for (const qr of [slip, sandboxQr({ amount: 99.5 })]) expect((await app.verify(a.apiKey, qr)).body.status).toBe('success');
    expect((await app.verify(a.apiKey, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    expect((await app.verify(b.apiKey, sandboxQr())).body.status).toBe('success');
    const before = dataOf(await app.gql('viewer', RECORDS, { id: a.accountId }));
    expect(before.verifyTransactions.nodes.map((n: { redactedAt: unknown }) => n.redactedAt)).toEqual([null, null]);
    expect(before.verifyTransactions.nodes[0].response.senderName).not.toBe('');
    expect(before.requestErrors.nodes).toHaveLength(1);

    // A support token may not; an unknown account is NOT_FOUND; nothing changes.
    for (const role of ['viewer', 'support'] as const) expect(errorCodes(await app.gql(role, ERASE, { id: a.accountId }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('admin', ERASE, { id: 'acc_missing' }))).toEqual(['NOT_FOUND']);
    expect(dataOf(await app.gql('viewer', RECORDS, { id: a.accountId }))).toEqual(before);

    const erased = dataOf(await app.gql('admin', ERASE, { id: a.accountId, reason: 'PDPA request #12' })).erasePersonalData;
    expect(erased).toEqual({ redactedVerifications: 2, deletedFailures: 1, redactedRechecks: 0, account: { id: a.accountId, credits: 3, usage: 2 } });

    const after = dataOf(await app.gql('viewer', RECORDS, { id: a.accountId }));
    expect(after.requestErrors.nodes).toEqual([]);
    for (const [i, node] of after.verifyTransactions.nodes.entries()) {
      const was = before.verifyTransactions.nodes[i];
      expect(node).toMatchObject({ id: was.id, qrcode: was.qrcode, transactionId: was.transactionId, amount: was.amount, sendingBank: was.sendingBank });
      expect(Date.parse(node.redactedAt)).toBeGreaterThan(0);
      expect(node.response).toMatchObject({ senderName: '', senderNameEN: '', senderBankAccountNumber: '', receiverName: '', receiverBankAccountNumber: '', rawData: {} });
      expect(node.response.amount).toBe(was.response.amount);
    }
    // The other account is untouched.
    const other = dataOf(await app.gql('viewer', RECORDS, { id: b.accountId }));
    expect(other.verifyTransactions.nodes[0].redactedAt).toBeNull();
    expect(other.verifyTransactions.nodes[0].response.senderName).not.toBe('');

    // Recorded with its actor; the books reconcile.
    const events = dataOf(await app.gql('viewer', `{ adminEvents(targetId: "${a.accountId}") { nodes { action actor reason details } } }`)).adminEvents.nodes;
    expect(events[0]).toEqual({
      action: 'erasePersonalData',
      actor: expect.stringMatching(/^admin:adm_\w+:admin-token$/),
      reason: 'PDPA request #12',
      details: { redactedVerifications: 2, deletedFailures: 1, redactedRechecks: 0 },
    });
    const doctor = await runDoctor(app.databaseUrl);
    expect(doctor).toMatchObject({ code: 0, discrepancies: [] });
    const raw = await openRawRecords(app.databaseUrl);
    try {
      const text = JSON.stringify((await raw.verifyTransactions()).filter((r) => r.accountId === a.accountId));
      expect(text).not.toContain(before.verifyTransactions.nodes[0].response.senderName);
    } finally {
      await raw.close();
    }

    // The slip it verified is still a duplicate for it.
    const again = await app.post({ qrcode: slip, checks: { duplicate: true } }, { 'x-api-key': a.apiKey });
    expect(again.body.checks.duplicate).toMatchObject({ passed: false, seen: true, count: 1 });
  });

  it('leaves none of the erased values in the bytes of the database, its WAL, or a backup taken after', { timeout: 120_000 }, async () => {
    const file = app.databaseUrl.slice('sqlite:'.length);
    const a = await app.account(40);
    // Records written by the server's own store: successes whose answers name people, QR text that is not a slip's, failures.
    for (let i = 0; i < 30; i++) {
      const id = newId('req');
      const transactionId = `TXERASE${String(i).padStart(4, '0')}`;
      await app.store.holdCredit({ id, accountId: a.accountId, keyId: 'key_erase', createdAt: new Date(), instanceId: null });
      const qrcode = i % 3 === 0 ? `${ERASED.qrText};${i}` : slipQr('004', transactionId);
      await app.store.settleHold({ id, accountId: a.accountId, keyId: 'key_erase', requestId: id, qrcode, transactionId, amount: 777.25, sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 3, response: erasedSlip(transactionId, i % 10 === 5), createdAt: new Date() });
    }
    for (let i = 0; i < 5; i++) {
      const id = newId('req');
      await app.store.insertRequestError({ id, accountId: a.accountId, keyId: null, requestId: id, qrcode: `${ERASED.qrText};failed ${i}`, transactionId: null, sendingBank: null, kind: 'slip_not_found', message: 'slip not found', upstream: 'sandbox', latencyMs: 2, createdAt: new Date() });
    }
    // Slips kept for re-checks and confirmed later: the QR text, the bank's answer and the receiver asked for.
    for (let i = 0; i < 4; i++) {
      const id = newId('req');
      const transRef = `TXKEPT${String(i).padStart(4, '0')}`;
      const kept = new Date(Date.now() - 120_000);
      const options = JSON.stringify({ receiverName: ERASED.receiverName });
      const qrcode = i % 2 === 0 ? `${ERASED.qrText};kept ${i}` : slipQr('004', transRef);
      await app.store.createRecheck(
        { id, accountId: a.accountId, keyId: 'key_erase', requestId: id, paymentRequestId: null, qrcode, sendingBank: '004', transRef, options, createdAt: kept, deadline: new Date(), nextAttemptAt: new Date(), attempts: 1, attemptId: null, outcome: null, finishedAt: null, result: null, lineChannelId: null, lineUserId: null },
        100,
      );
      const result = JSON.stringify({ verificationId: newId('req'), data: erasedSlip(transRef, i === 1), checks: { receiverName: { passed: true, expected: ERASED.receiverName, actual: [ERASED.receiverName] } } });
      await app.store.finishRecheck(id, { outcome: 'verified', at: new Date(), result });
    }
    // The search finds them before the erasure, so finding none after means something.
    const before = { ...occurrences(file), ...occurrences(`${file}-wal`) };
    expect(Object.keys(before).sort()).toEqual(Object.keys(ERASED).sort());

    const erased = dataOf(await app.gql('admin', ERASE, { id: a.accountId, reason: 'PDPA request #13' })).erasePersonalData;
    expect(erased).toMatchObject({ redactedVerifications: 30, deletedFailures: 5, redactedRechecks: 4 });

    // While the server still runs (its connection open, the WAL in use), and after more verifications.
    expect((await app.verify(a.apiKey, sandboxQr())).body.status).toBe('success');
    expect(occurrences(file)).toEqual({});
    expect(occurrences(`${file}-wal`)).toEqual({});

    // A backup taken afterwards, by the CLI, while the server serves.
    const dir = tempDir();
    try {
      const backup = join(dir.path, 'after-erasure.db');
      await exec(process.execPath, [...SLIPGATE_CLI, 'backup', '--to', backup], { env: { ...process.env, DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent' }, timeout: 60_000 });
      expect(readFileSync(backup).subarray(0, 15).toString()).toBe('SQLite format 3');
      expect(occurrences(backup)).toEqual({});
      expect(occurrences(`${backup}-wal`)).toEqual({});
    } finally {
      dir.remove();
    }
  });
});
