// The credit ledger without multi-document transactions.
//
// An entry is written first, as 'pending': its unique `claim` takes the
// idempotency key, so of two identical top-ups only one is ever written.
// Then the account takes the delta in one conditional write that also
// pushes the entry id onto `appliedLedger`, and is refused when the id is
// already there: however many processes finish the same pending entry
// (the caller, a retry with the same key, recovery after a crash), the
// credits move once. Last, the entry is marked 'applied'.
//
// A crash between the steps leaves a pending entry; the next request with
// the same key, or recovery, finishes it (recovery abandons one without a
// key instead: see recover()). An entry is counted (auditTotals,
// listLedger) once its id is in appliedLedger, whatever its own state.
//
// Refusals are decided in the account document too: a refused id goes onto
// `refusedLedger`, which the credit write checks, so a concurrent finisher
// cannot apply an entry after another one refused it and deleted it.
// Deleted or missing accounts need no such mark: nothing can credit them.
//
// Bounds: an applied id has to stay in appliedLedger only while some
// process may still hold a stale "pending" view of the entry (the window
// between reading it and its credit write: milliseconds). Recovery prunes
// ids an hour after they were applied; the entry's own state ('applied')
// then answers every later retry. Refused ids stay: refusals are rare
// human mistakes (overdrawing adjustments), and keeping them is what makes
// a late finisher harmless.
import type { Account, LedgerEntry } from '../../domain/types.js';
import { StoreError, type LedgerResult } from '../../domain/ports/store.js';
import { isSameLedgerChange } from '../../domain/accounts/money-rules.js';
import { isDuplicateKey } from './connection.js';
import { ledger, ledgerClaim, ledgerDoc, type LedgerDoc } from './docs.js';
import { rawAccounts, type Models } from './schemas.js';

const PRUNE_AFTER_MS = 60 * 60_000;
const PRUNE_BATCH = 1_000;
const CLAIM_ATTEMPTS = 3;

type Applied = 'applied' | 'not_found' | 'insufficient';

export class Ledger {
  constructor(
    private readonly m: Models,
    private readonly readAccount: (id: string) => Promise<Account | null>,
  ) {}

  private get accounts() {
    return rawAccounts(this.m);
  }

  async apply(entry: LedgerEntry): Promise<LedgerResult> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      try {
        await this.m.ledger.create(ledgerDoc(entry));
        return await this.finish(entry, 'pending', true);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const prior = await this.m.ledger.findOne({ claim: ledgerClaim(entry) }).lean<LedgerDoc>();
      // Refused and removed since: the key is free again.
      if (!prior) continue;
      const p = ledger(prior);
      if (!isSameLedgerChange(p, entry)) {
        throw new StoreError('conflict', 'idempotency key was already used for a different change');
      }
      return await this.finish(p, prior.state, false);
    }
    throw new StoreError('conflict', 'ledger entry id or idempotency key is already taken');
  }

  /**
   * Pending entries older than `olderThan` were left by a crash. One with an
   * idempotency key is finished: its caller retries with that key and gets
   * this entry back. One without a key is abandoned unless its credits already
   * moved: its caller saw an error and retries as a new entry, so finishing
   * this one too would credit twice (the SQL engines roll such a change back).
   */
  async recover(olderThan: Date, now: Date): Promise<void> {
    const pending = await this.m.ledger.find({ state: 'pending', createdAt: { $lt: olderThan } }).lean<LedgerDoc[]>();
    for (const doc of pending) {
      const entry = ledger(doc);
      if (!entry.idempotencyKey) {
        await this.abandon(entry);
        continue;
      }
      await this.finish(entry, 'pending', false).catch((err: unknown) => {
        // Refused: finish() removed the entry, which is all recovery owes it.
        if (!(err instanceof StoreError && (err.code === 'not_found' || err.code === 'insufficient'))) throw err;
      });
    }
    await this.prune(now);
  }

  /** Decides a pending entry never moves credits, unless it already did (then it is kept, as applied). */
  private async abandon(entry: LedgerEntry): Promise<void> {
    const id = entry.id;
    await this.accounts.updateOne({ _id: entry.accountId, appliedLedger: { $ne: id }, refusedLedger: { $ne: id } }, { $push: { refusedLedger: id } });
    if (await this.isApplied(entry.accountId, id)) {
      await this.m.ledger.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'applied', appliedAt: new Date() } });
    } else {
      await this.m.ledger.deleteOne({ _id: id, state: 'pending' });
    }
  }

  /** Pending entries of the account whose delta is already in its credits (a crash window). */
  async appliedPendingIds(accountId: string): Promise<string[]> {
    const pending = await this.m.ledger.find({ accountId, state: 'pending' }, { _id: 1 }).lean<{ _id: string }[]>();
    const ids: string[] = [];
    for (const p of pending) {
      if ((await this.accounts.countDocuments({ _id: accountId, appliedLedger: p._id })) > 0) ids.push(p._id);
    }
    return ids;
  }

  private async finish(entry: LedgerEntry, state: LedgerDoc['state'], created: boolean): Promise<LedgerResult> {
    if (state === 'pending') {
      const applied = await this.credit(entry);
      if (applied !== 'applied') {
        await this.m.ledger.deleteOne({ _id: entry.id, state: 'pending' });
        throw applied === 'not_found'
          ? new StoreError('not_found', 'account not found')
          : new StoreError('insufficient', 'adjustment would make the balance negative');
      }
      await this.m.ledger.updateOne({ _id: entry.id, state: 'pending' }, { $set: { state: 'applied', appliedAt: new Date() } });
    }
    const account = await this.readAccount(entry.accountId);
    if (!account) throw new StoreError('not_found', 'account not found');
    return { entry, created, account };
  }

  /** Moves the delta into the account once, or decides it never will. */
  private async credit(entry: LedgerEntry): Promise<Applied> {
    const id = entry.id;
    const undecided = { _id: entry.accountId, appliedLedger: { $ne: id }, refusedLedger: { $ne: id } };
    const covered = entry.delta < 0 ? { credits: { $gte: -entry.delta } } : {};
    const r = await this.accounts.updateOne(
      { ...undecided, deletedAt: null, ...covered },
      { $inc: { credits: entry.delta }, $push: { appliedLedger: id } },
    );
    if (r.matchedCount === 1) return 'applied';
    if (await this.isApplied(entry.accountId, id)) return 'applied';
    const a = await this.accounts.findOne({ _id: entry.accountId }, { projection: { deletedAt: 1 } });
    if (!a || a.deletedAt) return 'not_found';
    const refused = await this.accounts.updateOne(undecided, { $push: { refusedLedger: id } });
    if (refused.matchedCount === 1) return 'insufficient';
    // Someone else decided between our two writes: theirs stands.
    return (await this.isApplied(entry.accountId, id)) ? 'applied' : 'insufficient';
  }

  private async isApplied(accountId: string, entryId: string): Promise<boolean> {
    return (await this.accounts.countDocuments({ _id: accountId, appliedLedger: entryId })) > 0;
  }

  private async prune(now: Date): Promise<void> {
    const done = await this.m.ledger
      .find({ pruned: false, appliedAt: { $lt: new Date(now.getTime() - PRUNE_AFTER_MS) } }, { _id: 1, accountId: 1 })
      .limit(PRUNE_BATCH)
      .lean<{ _id: string; accountId: string }[]>();
    if (done.length === 0) return;
    const byAccount = new Map<string, string[]>();
    for (const d of done) byAccount.set(d.accountId, [...(byAccount.get(d.accountId) ?? []), d._id]);
    for (const [accountId, ids] of byAccount) await this.accounts.updateOne({ _id: accountId }, { $pullAll: { appliedLedger: ids } });
    await this.m.ledger.updateMany({ _id: { $in: done.map((d) => d._id) } }, { $set: { pruned: true } });
  }
}
