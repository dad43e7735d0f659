// Credit holds without multi-document transactions.
//
// A hold lives inside its account document, so taking one is a single atomic
// write: credits -1 and the hold pushed, only while credits > 0. Closing a
// hold touches three documents (the audit record, the hold's outcome, the
// account), so each close is a sequence of single-document writes ordered
// so that a crash at any point leaves something recovery can finish:
//
//   1. the audit record (VerifyTransaction, or RequestError for a refund),
//      with the payment request the settle pays, if any;
//   2. the outcome: inserting hold_outcomes {_id: holdId, outcome} is the
//      one decision between "charged" and "refunded". Its unique _id makes
//      it first-writer-wins, so a settle and a recovery (or a release)
//      racing on one hold always agree on which way it went;
//   2b. a charged settle that pays a payment request pays it (payments.ts,
//      idempotent), before step 3: until the hold is gone, recovery sees it
//      and pays it too;
//   3. the account: $pull the hold with usage +1 (charged) or credits +1
//      (refunded), conditional on the hold still being there, so however
//      many processes finish the same hold, the account changes once.
//
// Without step 2, a settle that loses the $pull cannot tell whether a
// recoverer charged the hold (its VerifyTransaction must stay) or refunded
// it (it must go). Outcomes are purged after a day by recovery; by then no
// request that could still race on the hold is alive.
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import { StoreError, type HoldResult, type RecoveryResult, type SettlePayment } from '../../domain/ports/store.js';
import type { PayResult } from '../../domain/payments/types.js';
import { interruptedFailure } from '../../domain/accounts/money-rules.js';
import { isDuplicateKey } from './connection.js';
import { requestErrorDoc, verifyTransactionDoc, type HoldEntry, type HoldOutcomeDoc, type VerifyTransactionDoc } from './docs.js';
import { payingDoc, payingVerdict, payRequest } from './payments.js';
import type { PayingDoc } from './doc-types.js';
import { rawAccounts, type Models } from './schemas.js';
import { outboxFields } from './webhooks.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';

type Outcome = HoldOutcomeDoc['outcome'];

const OUTCOME_RETENTION_MS = 24 * 60 * 60_000;

export class HoldBook {
  constructor(private readonly m: Models) {}

  private get accounts() {
    return rawAccounts(this.m);
  }

  async hold(h: CreditHold): Promise<HoldResult> {
    // The one atomic write the design rests on (on a real MongoDB: the
    // filter is re-checked under the document lock). It hands back the
    // balance it left, which the caller reports without reading again.
    const entry: HoldEntry = { _id: h.id, keyId: h.keyId, createdAt: h.createdAt, instanceId: h.instanceId ?? null };
    const after = await this.accounts.findOneAndUpdate(
      { _id: h.accountId, deletedAt: null, credits: { $gt: 0 } },
      { $inc: { credits: -1 }, $push: { holds: entry } },
      // No projection: FerretDB's findAndModify does not take one.
      { returnDocument: 'after' },
    );
    if (after) return { status: 'held', credits: after.credits };
    const a = await this.accounts.findOne({ _id: h.accountId }, { projection: { deletedAt: 1 } });
    return { status: !a || a.deletedAt ? 'no_account' : 'insufficient' };
  }

  async settle(r: VerifyTransactionRecord, deliveries: readonly NewWebhookDelivery[] = [], payment?: SettlePayment): Promise<PayResult | undefined> {
    const entry = await this.findHold(r.accountId, r.id);
    if (!entry) throw new StoreError('conflict', `hold ${r.id} no longer exists`);
    const paying = payment && payingDoc(payment);
    try {
      // The webhook outbox and the payment to make ride in the same document (webhooks.ts, payments.ts).
      await this.m.verifyTransactions.create({ ...verifyTransactionDoc(r), ...outboxFields(deliveries), ...(paying ? { paying } : {}) });
    } catch (err) {
      // A previous attempt of this settle wrote it and died: finish that one.
      if (!isDuplicateKey(err)) throw err;
    }
    if ((await this.decide(r.id, r.accountId, 'charged')) === 'refunded') {
      // Recovery refunded the hold first: the request is not charged.
      await this.m.verifyTransactions.deleteOne({ _id: r.id });
      throw new StoreError('conflict', `hold ${r.id} was released`);
    }
    // Paid before the hold closes: until then recovery sees the hold and finishes the payment too.
    const paid = paying && (await this.pay(r.id, paying));
    // matchedCount 0 means a recoverer saw our record and charged the hold
    // for us (only a "charged" outcome lets anyone pull with usage +1).
    await this.close(r.accountId, entry, 'charged');
    return paid;
  }

  /** The payment of a charged verification (idempotent: a slip that paid the request pays it again), then its note is dropped. */
  private async pay(verificationId: string, paying: PayingDoc): Promise<PayResult> {
    const result = await payRequest(this.m, paying);
    // The verdict replaces the note in one write: kept with the record for good.
    await this.m.verifyTransactions.updateOne({ _id: verificationId }, { $unset: { paying: 1 }, $set: { payment: payingVerdict(paying, result) } });
    return result;
  }

  /** Resolves to the balance after the release (read back: the refund spans several writes here). */
  async release(r: RequestErrorRecord & { accountId: string }): Promise<number> {
    const entry = await this.findHold(r.accountId, r.id);
    if (!entry || (await this.decide(r.id, r.accountId, 'refunded')) !== 'charged') {
      // Written before the account changes: a refund is never left unexplained.
      await this.insertRequestError(r);
      if (entry) await this.close(r.accountId, entry, 'refunded');
    }
    const a = await this.accounts.findOne({ _id: r.accountId }, { projection: { credits: 1 } });
    return a?.credits ?? 0;
  }

  /**
   * Holds older than `olderThan`, or taken under one of the `dead` (expired)
   * leases, belong to requests that died: the ones with a VerifyTransaction
   * are charged, the others refunded as 'interrupted'.
   */
  async recover(olderThan: Date, now: Date, dead: readonly string[] = []): Promise<RecoveryResult> {
    const result: RecoveryResult = { consumed: 0, released: 0 };
    const deadLease = new Set(dead);
    const aged = { 'holds.createdAt': { $lt: olderThan } };
    // Read first, then change: no cursor stays open over documents this
    // loop rewrites. Stale holds are few (only crashes leave them).
    const filter = dead.length > 0 ? { $or: [aged, { 'holds.instanceId': { $in: [...dead] } }] } : aged;
    const stale = await this.accounts.find(filter, { projection: { holds: 1 } }).toArray();
    for (const acc of stale) {
      for (const entry of acc.holds ?? []) {
        if (!(entry.createdAt < olderThan) && !(entry.instanceId && deadLease.has(entry.instanceId))) continue;
        const recorded = await this.m.verifyTransactions.findById(entry._id, { paying: 1 }).lean<Pick<VerifyTransactionDoc, 'paying'>>();
        const outcome = await this.decide(entry._id, acc._id, recorded ? 'charged' : 'refunded');
        // A settle that died between its charge and its payment: the payment is made here, once.
        if (outcome === 'charged' && recorded?.paying) await this.finishPayment(entry._id, recorded.paying);
        if (outcome === 'refunded') {
          await this.insertRequestError(interruptedFailure({ id: entry._id, accountId: acc._id, keyId: entry.keyId }, now));
        }
        if (await this.close(acc._id, entry, outcome)) {
          result[outcome === 'charged' ? 'consumed' : 'released']++;
        }
        // A settle that wrote its record after the refund was decided
        // removes it itself; this covers one that died before doing so.
        if (outcome === 'refunded') await this.m.verifyTransactions.deleteOne({ _id: entry._id });
      }
    }
    await this.m.holdOutcomes.deleteMany({ at: { $lt: new Date(now.getTime() - OUTCOME_RETENTION_MS) } });
    return result;
  }

  /** Recovery's payment: a request that does not exist (a bug, never a race: requests are not deleted) is nothing to pay, not a pass stuck for ever. */
  private async finishPayment(verificationId: string, paying: PayingDoc): Promise<void> {
    try {
      await this.pay(verificationId, paying);
    } catch (err) {
      if (!(err instanceof StoreError && err.code === 'not_found')) throw err;
      await this.m.verifyTransactions.updateOne({ _id: verificationId }, { $unset: { paying: 1 } });
    }
  }

  /** Failure records are written once: a retry keeps the first. */
  async insertRequestError(r: RequestErrorRecord): Promise<void> {
    try {
      await this.m.requestErrors.create(requestErrorDoc(r));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  private async findHold(accountId: string, holdId: string): Promise<HoldEntry | null> {
    const acc = await this.accounts.findOne({ _id: accountId, 'holds._id': holdId }, { projection: { holds: 1 } });
    return (acc?.holds ?? []).find((h) => h._id === holdId) ?? null;
  }

  /** First writer decides; everyone after reads the decision. */
  private async decide(holdId: string, accountId: string, wanted: Outcome): Promise<Outcome> {
    try {
      await this.m.holdOutcomes.create({ _id: holdId, accountId, outcome: wanted, at: new Date() });
      return wanted;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const decided = await this.m.holdOutcomes.findById(holdId).lean();
    if (!decided) throw new StoreError('unavailable', `outcome of hold ${holdId} vanished; retry`);
    return decided.outcome;
  }

  /** Applies the outcome to the account once; false if already applied. */
  private async close(accountId: string, entry: HoldEntry, outcome: Outcome): Promise<boolean> {
    // $pull of the exact entry (as read back from the server): FerretDB's
    // $pull does not take a query such as {_id: holdId}.
    const r = await this.accounts.updateOne(
      { _id: accountId, 'holds._id': entry._id },
      { $pull: { holds: entry }, $inc: outcome === 'charged' ? { usage: 1 } : { credits: 1 } },
    );
    return r.modifiedCount === 1;
  }
}
