// `slipgate doctor` as a real process on every engine, after the books were
// corrupted through the engine's own driver in each way doctor checks: it
// exits 1 and names the corrupted account and what is wrong, and only that.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { runDoctor, type DoctorReport } from '../helpers/doctor.js';
import { testEngines } from '../helpers/engines.js';
import { openRawBooks, type RawBooks } from '../helpers/raw-books.js';

interface Books {
  databaseUrl: string;
  raw: RawBooks;
  /** Accounts of 10 credits that each spent one on a recorded success (usage 1, 9 credits left). */
  accounts: { accountId: string; keyId: string }[];
}

/** What doctor reported, per account, without the totals. */
const named = (report: DoctorReport) =>
  report.discrepancies.map((d) => ({ accountId: d.accountId, problems: d.problems })).sort((a, b) => a.accountId.localeCompare(b.accountId));

// One doctor process per case would take most of a minute per engine on a
// busy two-core machine, so each run checks several accounts at once: one
// corrupted account per kind of wrong books, and untouched ones it must not name.
describe.each(testEngines())('slipgate doctor on %s, books corrupted through the raw driver', (engine) => {
  const opened: RawBooks[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((r) => r.close()));
    await engine.dispose();
  });

  /** A fresh database with `count` accounts that each spent one credit on a recorded success. */
  async function books(count: number): Promise<Books> {
    const databaseUrl = await engine.databaseUrl();
    const store = await openStore(databaseUrl);
    try {
      const service = new AccountService(store);
      const accounts: Books['accounts'] = [];
      for (let i = 0; i < count; i++) {
        const { account, apiKey } = await service.createAccount({ name: `Shop ${i}`, credits: 10, actor: 'test' });
        const id = `vfy_${randomUUID().replaceAll('-', '')}`;
        expect(await store.holdCredit({ id, accountId: account.id, keyId: apiKey.key.id, createdAt: new Date() })).toMatchObject({ status: 'held' });
        await store.settleHold({
          id,
          accountId: account.id,
          keyId: apiKey.key.id,
          requestId: id,
          qrcode: 'qr',
          transactionId: `TX${i}`,
          amount: 100,
          sendingBank: '004',
          receivingBank: '014',
          upstream: 'sandbox',
          latencyMs: 1,
          response: {} as VerifyTransactionRecord['response'],
          createdAt: new Date(),
        });
        accounts.push({ accountId: account.id, keyId: apiKey.key.id });
      }
      const raw = await openRawBooks(databaseUrl);
      opened.push(raw);
      return { databaseUrl, raw, accounts };
    } finally {
      await store.close();
    }
  }

  it('exits 0 while the books agree, a hold younger than HOLD_STALE_MS (a verification in flight) included', { timeout: 60_000 }, async () => {
    const b = await books(2);
    const [inFlight] = b.accounts;
    await b.raw.insertHold(inFlight!.accountId, inFlight!.keyId, new Date());
    expect(await runDoctor(b.databaseUrl)).toMatchObject({ code: 0, accounts: 2, discrepancies: [], openHolds: 1 });
  });

  it('exits 1 and names each corrupted account with its discrepancy: credits, usage against records, negative balance, stale hold, ledger sum', { timeout: 60_000 }, async () => {
    const b = await books(6);
    const [credits, usage, negative, stale, ledger, untouched] = b.accounts.map((a) => a!);
    // Credits changed with no ledger entry.
    await b.raw.addCredits(credits!.accountId, 5);
    // A success's record gone, its usage left.
    expect(await b.raw.deleteVerifyTransactions(usage!.accountId)).toBe(1);
    // Below zero, past the engine's own guard.
    await b.raw.setNegativeCredits(negative!.accountId, -2);
    // A hold no process can still be working on; the sums still agree.
    const takenAt = new Date(Date.now() - 2 * 60 * 60_000);
    const holdId = await b.raw.insertHold(stale!.accountId, stale!.keyId, takenAt);
    // A ledger entry the balance never received.
    await b.raw.insertLedgerEntry(ledger!.accountId, 7);

    const report = await runDoctor(b.databaseUrl);
    expect(report.code).toBe(1);
    expect(report).toMatchObject({ accounts: 6, openHolds: 1 });
    const expected = [
      { accountId: credits!.accountId, problems: ['credits 14 + held 0 + usage 1 = 15, but the ledger adds up to 10'] },
      { accountId: usage!.accountId, problems: ['usage 1 but 0 VerifyTransaction records'] },
      { accountId: negative!.accountId, problems: ['negative balance -2', 'credits -2 + held 0 + usage 1 = -1, but the ledger adds up to 10'] },
      {
        accountId: stale!.accountId,
        problems: [`stale hold ${holdId} from ${takenAt.toISOString()}: no verification is in flight for it (is any slipgate running to recover it?)`],
      },
      { accountId: ledger!.accountId, problems: ['credits 9 + held 0 + usage 1 = 10, but the ledger adds up to 17'] },
    ].sort((x, y) => x.accountId.localeCompare(y.accountId));
    expect(named(report)).toEqual(expected);
    expect(named(report).map((d) => d.accountId)).not.toContain(untouched!.accountId);
  });
});
