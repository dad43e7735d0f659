// Opaque keyset cursors shared by every engine: newest first by (createdAt, id).
import { StoreError } from '../domain/ports/store.js';

export interface CursorPosition {
  at: number;
  id: string;
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.getTime()}:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): CursorPosition {
  const text = Buffer.from(cursor, 'base64url').toString();
  const sep = text.indexOf(':');
  const at = Number(text.slice(0, sep));
  const id = text.slice(sep + 1);
  if (sep < 1 || !Number.isSafeInteger(at) || id.length === 0) {
    throw new StoreError('invalid_cursor', 'invalid cursor');
  }
  return { at, id };
}

/** Cuts a page fetched with limit+1 rows and derives the next cursor. */
export function toPage<T extends { id: string }>(
  rows: T[],
  limit: number,
  createdAt: (row: T) => Date,
): { items: T[]; next: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? encodeCursor(createdAt(last), last.id) : null };
}
