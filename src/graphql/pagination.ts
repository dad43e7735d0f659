// Cursor pages: `first` items after an opaque `after` cursor (the store's
// keyset cursor, newest first), answered as { nodes, pageInfo }.
import type { ObjectRef } from '@pothos/core';
import type { Page } from '../domain/ports/store.js';
import { StoreError } from '../domain/ports/store.js';
import { builder, type Types } from './builder.js';
import { userInputError } from './errors.js';

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;

// Query cost (checked by the complexity plugin, builder.ts): a field costs 1,
// a store read STORE_READ_COST, and whatever a list selects counts once per
// item it may return: `first` as asked (variables included), else the default.
export const STORE_READ_COST = 10;

/** Cost of a paged list that reads the store `reads` times. */
export function pagedCost(reads = 1) {
  return (args: { first?: number | null }) => ({ field: reads * STORE_READ_COST, multiplier: Math.max(0, args.first ?? DEFAULT_PAGE_SIZE) });
}

const PageInfoRef = builder.objectRef<Page<unknown>>('PageInfo').implement({
  fields: (t) => ({
    endCursor: t.string({
      nullable: true,
      description: 'Pass as `after` to get the next page; null on the last page.',
      resolve: (page) => page.next,
    }),
    hasNextPage: t.boolean({ resolve: (page) => page.next !== null }),
  }),
});

export function connection<T>(name: string, node: ObjectRef<Types, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      // The connection field already multiplied by the page size.
      nodes: t.field({ type: [node], complexity: { field: 0, multiplier: 1 }, resolve: (page) => page.items }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (page) => page }),
    }),
  });
}

export const pageArgs = builder.args((t) => ({
  first: t.int({ required: false, defaultValue: DEFAULT_PAGE_SIZE, description: `1 to ${MAX_PAGE_SIZE}` }),
  after: t.string({ required: false, description: 'endCursor of the previous page' }),
}));

export function pageSize(first: number | null | undefined): number {
  const n = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) throw userInputError(`first must be between 1 and ${MAX_PAGE_SIZE}`);
  return n;
}

/** A bad cursor is the caller's mistake, not a server failure. */
export async function withCursor<T>(fetch: () => Promise<T>): Promise<T> {
  try {
    return await fetch();
  } catch (err) {
    if (err instanceof StoreError && err.code === 'invalid_cursor') throw userInputError('invalid cursor: pass an endCursor from a previous page');
    throw err;
  }
}
