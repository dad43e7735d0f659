// Erasure on request through GraphQL (admin role): an account's personal
// data goes now, from every record whatever its age; its credits, ledger and
// usage stay exact, doctor reconciles, and the slips it verified are still
// reported as duplicates. On SQLite (the store contract proves the engines).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { runDoctor } from '../helpers/doctor.js';
import { openRawRecords } from '../helpers/raw-records.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const ERASE = `mutation ($id: ID!, $reason: String) {
  erasePersonalData(accountId: $id, reason: $reason) { redactedVerifications deletedFailures account { id credits usage } }
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
    expect(erased).toEqual({ redactedVerifications: 2, deletedFailures: 1, account: { id: a.accountId, credits: 3, usage: 2 } });

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
      details: { redactedVerifications: 2, deletedFailures: 1 },
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
});
