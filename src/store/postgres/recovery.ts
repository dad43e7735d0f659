// Leases of serving processes and crash recovery of their holds on
// PostgreSQL. Processes on several hosts share the database, so lease expiry
// is written and judged by the database clock (clock_timestamp()) only: a
// host whose clock runs ahead cannot make a live process look dead.
import type { RecoveryResult } from '../../domain/ports/store.js';
import { interruptedFailure } from '../../domain/accounts/money-rules.js';
import type { PgDb, Run } from './db.js';
import * as row from './rows.js';

const TTL = `clock_timestamp() + $2::integer * interval '1 millisecond'`;

// SKIP LOCKED: a hold that a live request is settling or releasing right now
// is not stale after all; another instance recovering at the same time takes
// disjoint holds.
const RECOVER = `WITH expired AS (
     SELECT id FROM instance_leases WHERE expires_at < clock_timestamp()
   ), stale AS (
     DELETE FROM credit_holds h
     WHERE h.id IN (
       SELECT id FROM credit_holds
       WHERE created_at < $1 OR instance_id IN (SELECT id FROM expired)
       FOR UPDATE SKIP LOCKED)
     RETURNING h.id, h.account_id, h.key_id,
       EXISTS (SELECT 1 FROM verify_transactions v WHERE v.id = h.id) AS settled
   ), per_account AS (
     SELECT account_id, count(*) FILTER (WHERE settled) AS consumed, count(*) FILTER (WHERE NOT settled) AS released
     FROM stale GROUP BY account_id
   ), applied AS (
     UPDATE accounts a SET usage = a.usage + p.consumed, credits = a.credits + p.released
     FROM per_account p WHERE a.id = p.account_id
   )
   SELECT id, account_id, key_id, settled FROM stale`;

// A hold skipped above (locked) keeps its lease's record until a later pass.
const DROP_DEAD = `DELETE FROM instance_leases l
   WHERE expires_at < clock_timestamp() AND NOT EXISTS (SELECT 1 FROM credit_holds h WHERE h.instance_id = l.id)`;

/** One transaction: the refunds and their failure records commit together. */
export async function recover(db: PgDb, olderThan: Date, now: Date): Promise<RecoveryResult> {
  return db.tx(async (run) => {
    const { rows } = await run<{ id: string; account_id: string; key_id: string | null; settled: boolean }>(RECOVER, [olderThan]);
    let released = 0;
    for (const h of rows) {
      if (h.settled) continue;
      // What a released hold's failure record says is the domain's (money-rules.ts).
      await run(row.INSERT_ERROR, row.errorParams(interruptedFailure({ id: h.id, accountId: h.account_id, keyId: h.key_id }, now)));
      released++;
    }
    await run(DROP_DEAD);
    return { consumed: rows.length - released, released };
  });
}

export async function startLease(run: Run, instanceId: string, ttlMs: number): Promise<void> {
  await run(`INSERT INTO instance_leases (id, started_at, expires_at) VALUES ($1, clock_timestamp(), ${TTL})`, [instanceId, ttlMs]);
}

/** Only a live lease is extended: once expired, its holds are recovery's. */
export async function renewLease(run: Run, instanceId: string, ttlMs: number): Promise<boolean> {
  const r = await run(`UPDATE instance_leases SET expires_at = ${TTL} WHERE id = $1 AND expires_at >= clock_timestamp()`, [instanceId, ttlMs]);
  return r.rowCount === 1;
}

export async function endLease(run: Run, instanceId: string): Promise<void> {
  await run('DELETE FROM instance_leases WHERE id = $1', [instanceId]);
}
