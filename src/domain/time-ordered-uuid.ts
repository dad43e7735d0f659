// UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Record
// ids and request ids start with the time so that the rows written in one
// commit share the last page of each id index instead of each touching a
// random page, which is most of what a commit writes.
//
// Built on randomUUID() because Node serves its entropy from a cached pool;
// taking fresh bytes from the OS for every id (as the uuid package's v7
// does) cost ~2% of the verify path's CPU.
import { randomUUID } from 'node:crypto';

export function timeOrderedUuid(now = Date.now()): string {
  const ms = now.toString(16).padStart(12, '0');
  // randomUUID(): 8-4-4-4-12 hex with version 4 at index 14; keep its random
  // bits and RFC variant from index 15 on, and say version 7.
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${randomUUID().slice(15)}`;
}
