// After the key gate (keys/gate.ts) admitted a key on a payment request
// route: its account must still be live, the verify route's 1022 otherwise
// (docs/contract.md#errors), without a body or a credit involved.
import type { Store } from '../ports/store.js';

export type LiveAccount = { ok: true; accountId: string } | { ok: false; error: 'user_not_found' };

export async function liveAccountOf(store: Store, accountId: string): Promise<LiveAccount> {
  const account = await store.getAccount(accountId);
  if (!account || account.deletedAt) return { ok: false, error: 'user_not_found' };
  return { ok: true, accountId: account.id };
}
