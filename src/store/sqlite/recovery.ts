// Leases of serving processes and crash recovery of their holds, on one
// SQLite file. Every process sharing the file runs on one host, so the
// process clock judges expiry. Recovery is one IMMEDIATE transaction: the
// file's single writer makes concurrent recoveries take turns.
import type Database from 'better-sqlite3';
import type { RecoveryResult } from '../../domain/ports/store.js';
import { interruptedFailure } from '../../domain/accounts/money-rules.js';
import type { Statements } from './connection.js';
import * as row from './rows.js';

/** `money` are the verify path's statements: a recovered hold is ended by the same SQL a live request would use. */
export function sqliteRecovery(db: Database.Database, money: Statements) {
  const stmt = {
    start: db.prepare('INSERT INTO instance_leases (id, started_at, expires_at) VALUES (?, ?, ?)'),
    // Only a live lease is extended: once expired, its holds are recovery's.
    renew: db.prepare('UPDATE instance_leases SET expires_at = ? WHERE id = ? AND expires_at >= ?'),
    end: db.prepare('DELETE FROM instance_leases WHERE id = ?'),
    // Read first: recovery runs on every heartbeat of every process, and the
    // write lock it would take for nothing is the verify path's.
    due: db
      .prepare('SELECT EXISTS (SELECT 1 FROM credit_holds WHERE created_at < ?) OR EXISTS (SELECT 1 FROM instance_leases WHERE expires_at < ?)')
      .pluck(),
    stale: db.prepare(`SELECT h.* FROM credit_holds h WHERE h.created_at < ?
      UNION SELECT h.* FROM credit_holds h JOIN instance_leases l ON l.id = h.instance_id WHERE l.expires_at < ?`),
    vtExists: db.prepare('SELECT 1 FROM verify_transactions WHERE id = ?'),
    // A dead lease's record goes once nothing is held under it.
    dropDead: db.prepare(`DELETE FROM instance_leases
      WHERE expires_at < ? AND NOT EXISTS (SELECT 1 FROM credit_holds h WHERE h.instance_id = instance_leases.id)`),
  };

  const recover = db.transaction((olderThan: Date, now: Date): RecoveryResult => {
    const stale = stmt.stale.all(olderThan.getTime(), now.getTime()) as row.HoldRow[];
    const result = { consumed: 0, released: 0 };
    for (const h of stale) {
      money.deleteHold.run(h.id, h.account_id);
      if (stmt.vtExists.get(h.id)) {
        money.charge.run(h.account_id);
        result.consumed++;
        continue;
      }
      money.refund.run(h.account_id);
      money.insertError.run(row.errorParams(interruptedFailure({ id: h.id, accountId: h.account_id, keyId: h.key_id }, now)));
      result.released++;
    }
    stmt.dropDead.run(now.getTime());
    return result;
  });

  return {
    recover(olderThan: Date, now: Date): RecoveryResult {
      if (!stmt.due.get(olderThan.getTime(), now.getTime())) return { consumed: 0, released: 0 };
      return recover.immediate(olderThan, now);
    },
    startLease(instanceId: string, ttlMs: number, now: Date): void {
      stmt.start.run(instanceId, now.getTime(), now.getTime() + ttlMs);
    },
    renewLease(instanceId: string, ttlMs: number, now: Date): boolean {
      return stmt.renew.run(now.getTime() + ttlMs, instanceId, now.getTime()).changes === 1;
    },
    endLease(instanceId: string): void {
      stmt.end.run(instanceId);
    },
  };
}
