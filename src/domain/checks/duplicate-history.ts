// Looks up earlier verifications of one slip by one account for the
// `duplicate` check. Runs after the current verification is settled and
// leaves that record out: of two verifications of the same slip, the later
// lookup always sees the other one, so a reused slip is never missed — even
// when both requests race (both then report seen: true).
import type { Store } from '../ports/store.js';
import type { DuplicateHistory } from './run.js';

const PAGE = 100;

export async function duplicateHistory(
  store: Store,
  q: { accountId: string; transactionId: string; sendingBank: string; excludeId: string },
): Promise<DuplicateHistory> {
  let count = 0;
  let first: Date | null = null;
  let after: string | null = null;
  do {
    const page = await store.listVerifyTransactions({
      accountId: q.accountId,
      transactionId: q.transactionId,
      sendingBank: q.sendingBank,
      limit: PAGE,
      after,
    });
    for (const record of page.items) {
      if (record.id === q.excludeId) continue;
      count++;
      if (!first || record.createdAt < first) first = record.createdAt;
    }
    after = page.next;
  } while (after);
  return { count, firstVerifiedAt: first };
}
