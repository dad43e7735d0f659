// Personal data retention and erasure on MongoDB (domain/retention.ts).
// No transactions here: a batch reads the records, then redacts each with a
// write conditional on it not being redacted yet, so two passes at once
// (a lease that changed hands) redact every record once. Verifications only
// insert new records and never touch these fields.
import type { PersonalDataCounts, PersonalDataScope, Redact } from '../../domain/ports/store.js';
import { mapped } from './connection.js';
import type { Filter } from './filters.js';
import type { Models } from './schemas.js';
import type { VerifyTransactionDoc } from './docs.js';

const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;

function scopeFilter(scope: PersonalDataScope): Filter {
  return 'accountId' in scope ? { accountId: scope.accountId } : { createdAt: { $lt: scope.createdBefore } };
}

/** `null` also matches records written before the field existed. */
const UNREDACTED = { redactedAt: null } as const;

export async function countPersonalData(m: Models, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  return mapped(async () => {
    const [verifyTransactions, requestErrors] = await Promise.all([
      m.verifyTransactions.countDocuments({ ...scopeFilter(scope), ...UNREDACTED }),
      m.requestErrors.countDocuments(scopeFilter(scope)),
    ]);
    return { verifyTransactions, requestErrors };
  });
}

export async function redactVerifyTransactions(m: Models, scope: PersonalDataScope, redact: Redact, at: Date, limit: number): Promise<number> {
  return mapped(async () => {
    const docs = await m.verifyTransactions
      .find({ ...scopeFilter(scope), ...UNREDACTED }, { _id: 1, qrcode: 1, response: 1 })
      .sort(OLDEST_FIRST)
      .limit(limit)
      .lean<Pick<VerifyTransactionDoc, '_id' | 'qrcode' | 'response'>[]>();
    if (docs.length === 0) return 0;
    const r = await m.verifyTransactions.collection.bulkWrite(
      docs.map((d) => {
        const kept = redact({ qrcode: d.qrcode, response: d.response });
        return { updateOne: { filter: { _id: d._id, ...UNREDACTED } as never, update: { $set: { qrcode: kept.qrcode, response: kept.response, redactedAt: at } } } };
      }),
      { ordered: false },
    );
    return r.modifiedCount;
  });
}

export async function deleteRequestErrors(m: Models, scope: PersonalDataScope, limit: number): Promise<number> {
  return mapped(async () => {
    const docs = await m.requestErrors.find(scopeFilter(scope), { _id: 1 }).sort(OLDEST_FIRST).limit(limit).lean<{ _id: string }[]>();
    if (docs.length === 0) return 0;
    const r = await m.requestErrors.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
    return r.deletedCount;
  });
}

/** Judged by the process clock, like every lease expiry on MongoDB (leases.ts). */
export async function firstLiveLease(m: Models, now: Date): Promise<string | null> {
  return mapped(async () => {
    const lease = await m.instanceLeases.findOne({ expiresAt: { $gte: now } }, { _id: 1 }).sort({ _id: 1 }).lean<{ _id: string }>();
    return lease?._id ?? null;
  });
}
