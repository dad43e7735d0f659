// Per-request batching: a page of 100 audit records asks the store for their
// accounts once, not 100 times.
import DataLoader from 'dataloader';
import type { Account } from '../domain/types.js';
import type { Store } from '../domain/ports/store.js';

export interface Loaders {
  account: DataLoader<string, Account | null>;
}

export function createLoaders(store: Store): Loaders {
  return {
    account: new DataLoader<string, Account | null>(async (ids) => {
      const found = await store.getAccounts(ids);
      const byId = new Map(found.map((a) => [a.id, a]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}
