// The verify path's money writes on SQLite as plain statements; holds.ts
// runs each inside a savepoint of a group commit.
import type { CreditHold, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import { StoreError, type HoldResult } from '../../domain/ports/store.js';
import type { Statements } from './connection.js';
import { deliveryValues } from '../sql/webhooks.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import * as row from './rows.js';

/** The verify path's money writes; each runs atomically in its own savepoint of a group commit. */
export function verifyWrites(stmt: Statements) {
  const hold = (h: CreditHold): HoldResult => {
    const taken = stmt.hold.get(h.accountId) as { credits: number } | undefined;
    if (taken) {
      stmt.insertHold.run(h.id, h.accountId, h.keyId, h.createdAt.getTime(), h.instanceId ?? null);
      return { status: 'held', credits: taken.credits };
    }
    const a = stmt.account.get(h.accountId) as row.AccountRow | undefined;
    return { status: !a || a.deleted_at !== null ? 'no_account' : 'insufficient' };
  };
  const settle = (r: VerifyTransactionRecord, deliveries: readonly NewWebhookDelivery[]): void => {
    if (stmt.deleteHold.run(r.id, r.accountId).changes !== 1) {
      throw new StoreError('conflict', `hold ${r.id} no longer exists`);
    }
    stmt.insertVt.run(row.vtParams(r));
    stmt.charge.run(r.accountId);
    // The outbox: in the same savepoint, so an event exists iff its charge does.
    for (const d of deliveries) stmt.insertDelivery.run(...deliveryValues(d, (at) => at.getTime()));
  };
  const release = (r: RequestErrorRecord & { accountId: string }): number => {
    // A hold already gone (recovered) refunds nothing: report the balance as it is.
    const refunded = stmt.deleteHold.run(r.id, r.accountId).changes === 1 ? stmt.refund.get(r.accountId) : stmt.credits.get(r.accountId);
    stmt.insertError.run(row.errorParams(r));
    return (refunded as { credits: number } | undefined)?.credits ?? 0;
  };
  return { hold, settle, release };
}
