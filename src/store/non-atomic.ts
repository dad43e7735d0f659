// Money on a MongoDB-wire server rests on one guarded update being atomic:
// findOneAndUpdate({_id, credits: {$gt: 0}}, {$inc: {credits: -1}}) takes a
// credit only while there is one. MongoDB makes it so; FerretDB (v1, the
// project's own test server, and a common stand-in) reads the document and
// writes it back, so 50 verifications at once against 5 credits gave 6
// successes. Such a server is refused for money unless the operator says it
// is a test (MONGODB_ALLOW_NON_ATOMIC=yes): `serve` will not start on it,
// `doctor` reports it (docs/storage.md#a-mongodb-wire-server-that-is-not-mongodb).
import type { Store } from '../domain/ports/store.js';

/** What an engine knows of its server: the name of one that does not make a guarded update atomic. */
export interface NonAtomicProbe {
  /** The server's name and version (e.g. "FerretDB v1.24.0") when it does not; null when it does. */
  nonAtomicServer(): Promise<string | null>;
}

/** `serve` refused a database whose server would let credits be overdrawn. */
export class NonAtomicDatabaseError extends Error {
  override name = 'NonAtomicDatabaseError';
}

/** The server behind `store` that does not make a guarded update atomic; null for every other (SQLite, PostgreSQL, MongoDB). */
export async function nonAtomicServer(store: Store): Promise<string | null> {
  const probe = store as Store & Partial<NonAtomicProbe>;
  return typeof probe.nonAtomicServer === 'function' ? probe.nonAtomicServer() : null;
}

/** The one line that says why, and what to do. */
export function nonAtomicReason(server: string): string {
  return `DATABASE_URL is ${server}, a MongoDB-wire server that applies a guarded findOneAndUpdate by reading and writing back (not atomically): concurrent verifications can spend credits an account does not have; use MongoDB, PostgreSQL or SQLite, or set MONGODB_ALLOW_NON_ATOMIC=yes for a test`;
}

/** Throws NonAtomicDatabaseError for such a server unless `allowed`; the server's name when it is allowed. */
export async function refuseNonAtomic(store: Store, allowed: boolean): Promise<string | null> {
  const server = await nonAtomicServer(store);
  if (server && !allowed) throw new NonAtomicDatabaseError(nonAtomicReason(server));
  return server;
}
