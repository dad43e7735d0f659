// Usage per account and Bangkok day on MongoDB. Grouped here, not in an
// aggregation: the Bangkok day needs $dateToString, which FerretDB lacks.
// Only two small fields per record travel, streamed, and the counts stay per
// account and day.
import type { UsageRow } from '../../domain/ports/store.js';
import { usageRows } from '../usage.js';
import type { RequestErrorDoc, VerifyTransactionDoc } from './docs.js';
import { all, auditFilter } from './filters.js';
import type { Models } from './schemas.js';

const BANGKOK_OFFSET_MS = 7 * 60 * 60_000;
const bangkokDay = (at: Date) => new Date(at.getTime() + BANGKOK_OFFSET_MS).toISOString().slice(0, 10);

export async function usageOf(m: Models, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  const filter = auditFilter(q, 'request_errors');
  const successes = new Map<string, { account_id: string; day: string; n: number }>();
  for await (const r of m.verifyTransactions.find(filter, { accountId: 1, createdAt: 1 }).lean<VerifyTransactionDoc>().cursor()) {
    const day = bangkokDay(r.createdAt);
    const k = `${r.accountId}\u0000${day}`;
    const row = successes.get(k) ?? { account_id: r.accountId, day, n: 0 };
    row.n++;
    successes.set(k, row);
  }
  const failures = new Map<string, { account_id: string; day: string; kind: string; n: number }>();
  for await (const r of m.requestErrors.find(all([filter, { accountId: { $ne: null } }]), { accountId: 1, createdAt: 1, kind: 1 }).lean<RequestErrorDoc>().cursor()) {
    const day = bangkokDay(r.createdAt);
    const k = `${r.accountId}\u0000${day}\u0000${r.kind}`;
    const row = failures.get(k) ?? { account_id: r.accountId!, day, kind: r.kind, n: 0 };
    row.n++;
    failures.set(k, row);
  }
  return usageRows([...successes.values()], [...failures.values()]);
}
