// Personal data retention and erasure on MongoDB (domain/retention.ts).
// No transactions here: a batch reads the records, then redacts each with a
// write conditional on it not being redacted yet, so two passes at once
// (a lease that changed hands) redact every record once. Verifications only
// insert new records and never touch these fields.
import type { PassBatch, PassBatchResult, PassCursor, PersonalDataCounts, PersonalDataScope, PurgeReport, Redact, RedactRecheck } from '../../domain/ports/store.js';
import { mapped } from './connection.js';
import { all, type Filter } from './filters.js';
import type { RecheckDoc } from './recheck-schemas.js';
import type { Models } from './schemas.js';
import type { VerifyTransactionDoc } from './docs.js';

/** The pass's order; every index a pass uses serves it (schemas.ts). */
const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;

function scopeFilter(scope: PersonalDataScope): Filter {
  return 'accountId' in scope ? { accountId: scope.accountId } : { createdAt: { $lt: scope.createdBefore } };
}

/**
 * Strictly after the cursor. The `$gte` bound starts the index range there;
 * the `$or` then only passes over the cursor's ties.
 */
function afterPass(after: PassCursor | null): Filter[] {
  if (!after) return [];
  return [{ createdAt: { $gte: after.createdAt } }, { $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after.id } }] }];
}

/** `null` also matches records written before the field existed. */
const UNREDACTED = { redactedAt: null } as const;
/** A re-check that ended; an open one (finishedAt null) is still at work and never touched. */
const FINISHED = { finishedAt: { $ne: null } } as const;

/** What a pass still has to change in each collection (as sql/retention-scope.ts's STILL_TO_DO). */
const STILL_TO_DO = {
  verify_transactions: [UNREDACTED],
  request_errors: [],
  rechecks: [UNREDACTED, FINISHED],
} as const satisfies Record<string, readonly Filter[]>;

/** Exported for the plan test: what a batch of each collection reads. */
export function passFilter(collection: keyof typeof STILL_TO_DO, scope: PersonalDataScope, after: PassCursor | null): Filter {
  return all([scopeFilter(scope), ...STILL_TO_DO[collection], ...afterPass(after)]);
}

const lastOf = (docs: { _id: string; createdAt: Date }[]): PassBatchResult['last'] => {
  const last = docs[docs.length - 1];
  return last ? { createdAt: last.createdAt, id: last._id } : null;
};

export async function countPersonalData(m: Models, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  return mapped(async () => {
    const [verifyTransactions, requestErrors, rechecks] = await Promise.all([
      m.verifyTransactions.countDocuments({ ...scopeFilter(scope), ...UNREDACTED }),
      m.requestErrors.countDocuments(scopeFilter(scope)),
      m.rechecks.countDocuments({ ...scopeFilter(scope), ...UNREDACTED, ...FINISHED }),
    ]);
    return { verifyTransactions, requestErrors, rechecks };
  });
}

export async function redactVerifyTransactions(m: Models, scope: PersonalDataScope, redact: Redact, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return mapped(async () => {
    const docs = await m.verifyTransactions
      .find(passFilter('verify_transactions', scope, batch.after), { _id: 1, createdAt: 1, qrcode: 1, response: 1 })
      .sort(OLDEST_FIRST)
      .limit(batch.limit)
      .lean<Pick<VerifyTransactionDoc, '_id' | 'createdAt' | 'qrcode' | 'response'>[]>();
    if (docs.length === 0) return { changed: 0, last: null };
    const r = await m.verifyTransactions.collection.bulkWrite(
      docs.map((d) => {
        // kept.lineUserId is always null: the field goes, as on records that never had one.
        const kept = redact({ qrcode: d.qrcode, response: d.response });
        return { updateOne: { filter: { _id: d._id, ...UNREDACTED } as never, update: { $set: { qrcode: kept.qrcode, response: kept.response, redactedAt: at }, $unset: { lineUserId: '' } } } };
      }),
      { ordered: false },
    );
    return { changed: r.modifiedCount, last: lastOf(docs) };
  });
}

export async function deleteRequestErrors(m: Models, scope: PersonalDataScope, batch: PassBatch): Promise<PassBatchResult> {
  return mapped(async () => {
    const docs = await m.requestErrors
      .find(passFilter('request_errors', scope, batch.after), { _id: 1, createdAt: 1 })
      .sort(OLDEST_FIRST)
      .limit(batch.limit)
      .lean<{ _id: string; createdAt: Date }[]>();
    if (docs.length === 0) return { changed: 0, last: null };
    const r = await m.requestErrors.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
    return { changed: r.deletedCount, last: lastOf(docs) };
  });
}

/** Each write is conditional on the re-check being finished and unredacted still, so two passes at once redact it once. */
export async function redactFinishedRechecks(m: Models, scope: PersonalDataScope, redact: RedactRecheck, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return mapped(async () => {
    const docs = await m.rechecks
      .find(passFilter('rechecks', scope, batch.after), { _id: 1, createdAt: 1, qrcode: 1, result: 1, options: 1 })
      .sort(OLDEST_FIRST)
      .limit(batch.limit)
      .lean<Pick<RecheckDoc, '_id' | 'createdAt' | 'qrcode' | 'result' | 'options'>[]>();
    if (docs.length === 0) return { changed: 0, last: null };
    const r = await m.rechecks.collection.bulkWrite(
      docs.map((d) => {
        const kept = redact({ qrcode: d.qrcode, result: d.result ?? null, options: d.options ?? null });
        return { updateOne: { filter: { _id: d._id, ...UNREDACTED, ...FINISHED } as never, update: { $set: { ...kept, lineUserId: null, redactedAt: at } } } };
      }),
      { ordered: false },
    );
    return { changed: r.modifiedCount, last: lastOf(docs) };
  });
}

/** Exported for the plan test: what a batch of finished webhook deliveries reads (index { finishedAt, _id }). */
export function finishedFilter(finishedBefore: Date, after: PassCursor | null): Filter {
  const range: Filter[] = [{ finishedAt: { $lt: finishedBefore } }];
  if (after) range.push({ finishedAt: { $gte: after.createdAt } }, { $or: [{ finishedAt: { $gt: after.createdAt } }, { finishedAt: after.createdAt, _id: { $gt: after.id } }] });
  return all(range);
}

export async function deleteFinishedWebhookDeliveries(m: Models, finishedBefore: Date, batch: PassBatch): Promise<PassBatchResult> {
  return mapped(async () => {
    const docs = await m.webhookDeliveries
      .find(finishedFilter(finishedBefore, batch.after), { _id: 1, finishedAt: 1 })
      .sort({ finishedAt: 1, _id: 1 })
      .limit(batch.limit)
      .lean<{ _id: string; finishedAt: Date }[]>();
    if (docs.length === 0) return { changed: 0, last: null };
    // Still finished: one redelivered since the read is pending again (finishedAt null) and stays.
    const r = await m.webhookDeliveries.deleteMany({ _id: { $in: docs.map((d) => d._id) }, finishedAt: { $lt: finishedBefore } });
    const last = docs[docs.length - 1]!;
    return { changed: r.deletedCount, last: { createdAt: last.finishedAt, id: last._id } };
  });
}

/**
 * WiredTiger writes a changed document to new blocks and frees the old
 * ones without clearing them; `compact` rewrites the collection's files so
 * free blocks are given back. Many deployments do not allow it (managed
 * services, users without the compact action): then it is reported, not
 * failed. The oplog, the journal, secondaries and backups keep old values
 * until they rotate out (SECURITY.md).
 */
export async function compactRedacted(m: Models): Promise<PurgeReport> {
  const db = m.verifyTransactions.db;
  try {
    for (const collection of ['verify_transactions', 'request_errors', 'rechecks']) await db.db!.command({ compact: collection });
    return { complete: true, detail: 'compact of verify_transactions, request_errors and rechecks done; the oplog, secondaries and backups keep old values until they rotate out' };
  } catch (err) {
    return { complete: false, detail: `compact not run (${(err as Error).message}); freed blocks keep old values until WiredTiger reuses them` };
  }
}

/** Judged by the process clock, like every lease expiry on MongoDB (leases.ts). */
export async function firstLiveLease(m: Models, now: Date): Promise<string | null> {
  return mapped(async () => {
    const lease = await m.instanceLeases.findOne({ expiresAt: { $gte: now } }, { _id: 1 }).sort({ _id: 1 }).lean<{ _id: string }>();
    return lease?._id ?? null;
  });
}
