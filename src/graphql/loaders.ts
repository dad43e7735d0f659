// Per-request batching: a page of 100 audit records asks the store for their
// accounts once, not 100 times.
import DataLoader from 'dataloader';
import type { Account, AdminToken } from '../domain/types.js';
import type { Store } from '../domain/ports/store.js';

export interface Loaders {
  account: DataLoader<string, Account | null>;
  /** Revoked tokens too: a ledger entry still names whoever made it. */
  adminToken: DataLoader<string, AdminToken | null>;
}

export function createLoaders(store: Store): Loaders {
  return {
    account: new DataLoader<string, Account | null>(async (ids) => {
      const found = await store.getAccounts(ids);
      const byId = new Map(found.map((a) => [a.id, a]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    // Admin tokens are few (people and services, not customers): one read a request.
    adminToken: new DataLoader<string, AdminToken | null>(async (ids) => {
      const byId = new Map((await store.listAdminTokens()).map((token) => [token.id, token]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}
