// Erasures outlive restores. An erasure on request (admin/actions.ts) is
// recorded as an admin event; those events are the register. Restoring a
// backup taken before an erasure would bring the erased personal data back
// and drop the event that recorded it, so a restore reads the erasure
// events of the database it replaces and, for each one the backup lacks,
// runs the same redaction on the restored copy and records the same event
// (same id, actor, reason and time) before the copy goes live. The events
// travel with the database itself: no second file to keep in step, back
// up or lose, and a later restore finds them again.
import { removePersonalData } from './retention.js';
import type { Store } from '../ports/store.js';
import type { AdminEvent } from '../types.js';

/** The admin event action of an erasure on request. */
export const ERASURE_ACTION = 'erasePersonalData';

/** Events of one account read per page while looking for an erasure's event. */
const PAGE = 200;

/**
 * Re-applies to `store` every erasure in `erasures` whose event it does not
 * hold yet, oldest first: the account's verification records redacted
 * (redactedAt = the erasure's time), its failed-request records deleted,
 * the event recorded. Resolves to the erasures re-applied.
 */
export async function reapplyErasures(store: Store, erasures: readonly AdminEvent[]): Promise<AdminEvent[]> {
  const applied: AdminEvent[] = [];
  const oldestFirst = [...erasures].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  for (const erasure of oldestFirst) {
    if (erasure.action !== ERASURE_ACTION || erasure.targetId === null) continue;
    if (await holdsEvent(store, erasure.targetId, erasure.id)) continue;
    // The account may not be in the backup at all: the event is still kept, for the next restore.
    await removePersonalData(store, { accountId: erasure.targetId }, { now: erasure.createdAt });
    await store.insertAdminEvent(erasure);
    applied.push(erasure);
  }
  return applied;
}

async function holdsEvent(store: Store, targetId: string, id: string): Promise<boolean> {
  let after: string | null = null;
  do {
    const page = await store.listAdminEvents({ targetId, limit: PAGE, after });
    if (page.items.some((e) => e.id === id)) return true;
    after = page.next;
  } while (after);
  return false;
}
