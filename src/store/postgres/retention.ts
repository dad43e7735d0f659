// Personal data retention and erasure on PostgreSQL (domain/retention.ts).
// A batch is one short transaction: its rows are locked with SKIP LOCKED, so
// two instances running a pass at once (a lease that changed hands) take
// different rows instead of waiting on each other, and settles, which only
// insert new records, never wait on it at all.
import type { PassBatch, PassBatchResult, PersonalDataCounts, PersonalDataScope, PurgeReport, Redact, RedactRecheck } from '../../domain/ports/store.js';
import type { VerifiedSlip } from '../../domain/types.js';
import { passBatchQuery, personalDataScope, type PassTable } from '../sql/retention-scope.js';
import { finishedBatchQuery } from '../sql/webhooks.js';
import { time, type PgDb, type Run } from './db.js';
import { numbered } from './sql.js';

export async function countPersonalData(db: PgDb, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  const f = personalDataScope(scope, time);
  const count = async (sql: string) => (await db.run<{ n: number }>(numbered(sql), f.params)).rows[0]!.n;
  const [verifyTransactions, requestErrors, rechecks] = await Promise.all([
    count(`SELECT count(*)::int AS n FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where}`),
    count(`SELECT count(*)::int AS n FROM request_errors WHERE ${f.where}`),
    count(`SELECT count(*)::int AS n FROM rechecks WHERE finished_at IS NOT NULL AND redacted_at IS NULL AND ${f.where}`),
  ]);
  return { verifyTransactions, requestErrors, rechecks };
}

interface Picked {
  id: string;
  created_at: Date;
}

/**
 * A bitmap scan reads every row of the range before it sorts and stops at
 * the limit: from a cursor, that is all of an account's records still to
 * come, in every batch. An ordered index scan stops after the batch's rows.
 * The planner takes the bitmap when it underestimates the range, so the
 * batch's transaction leaves it no choice.
 */
export const BATCH_PLANNER = 'SET LOCAL enable_bitmapscan = off';

/** The batch's rows (sql/retention-scope.ts), locked for this transaction; rows another pass holds are left to it. */
async function nextRows<T extends Picked>(run: Run, table: PassTable, columns: string, scope: PersonalDataScope, batch: PassBatch): Promise<T[]> {
  const q = passBatchQuery(table, columns, scope, batch, time);
  await run(BATCH_PLANNER);
  return (await run<T>(numbered(`${q.sql} FOR UPDATE SKIP LOCKED`), q.params)).rows;
}

const lastOf = (rows: Picked[]): PassBatchResult['last'] => {
  const last = rows[rows.length - 1];
  return last ? { createdAt: last.created_at, id: last.id } : null;
};

export async function redactVerifyTransactions(db: PgDb, scope: PersonalDataScope, redact: Redact, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return db.tx(async (run) => {
    const rows = await nextRows<Picked & { qrcode: string; response: VerifiedSlip }>(run, 'verify_transactions', 'id, created_at, qrcode, response', scope, batch);
    if (rows.length === 0) return { changed: 0, last: null };
    const kept = rows.map((r) => redact({ qrcode: r.qrcode, response: r.response }));
    // One statement for the batch: the new values travel as three parallel arrays (redaction removes the LINE user whole).
    const updated = await run(
      `UPDATE verify_transactions v SET qrcode = u.qrcode, response = u.response::jsonb, line_user_id = NULL, redacted_at = $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, qrcode, response)
       WHERE v.id = u.id AND v.redacted_at IS NULL`,
      [rows.map((r) => r.id), kept.map((k) => k.qrcode), kept.map((k) => JSON.stringify(k.response)), at],
    );
    return { changed: updated.rowCount ?? 0, last: lastOf(rows) };
  });
}

export async function deleteRequestErrors(db: PgDb, scope: PersonalDataScope, batch: PassBatch): Promise<PassBatchResult> {
  return db.tx(async (run) => {
    const rows = await nextRows(run, 'request_errors', 'id, created_at', scope, batch);
    if (rows.length === 0) return { changed: 0, last: null };
    const deleted = await run('DELETE FROM request_errors WHERE id = ANY($1::text[])', [rows.map((r) => r.id)]);
    return { changed: deleted.rowCount ?? 0, last: lastOf(rows) };
  });
}

/**
 * The batch's finished re-checks, locked: a finish never waits on them (it
 * changes open ones only), and the UPDATE checks again that each is still
 * finished and unredacted.
 */
export async function redactFinishedRechecks(db: PgDb, scope: PersonalDataScope, redact: RedactRecheck, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return db.tx(async (run) => {
    const rows = await nextRows<Picked & { qrcode: string; result: string | null; options: string | null }>(run, 'rechecks', 'id, created_at, qrcode, result, options', scope, batch);
    if (rows.length === 0) return { changed: 0, last: null };
    const kept = rows.map((r) => redact({ qrcode: r.qrcode, result: r.result, options: r.options }));
    // One statement for the batch, the new values as parallel arrays, like the verification records'.
    const updated = await run(
      `UPDATE rechecks r SET qrcode = u.qrcode, result = u.result, options = u.options, line_user_id = NULL, redacted_at = $5
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(id, qrcode, result, options)
       WHERE r.id = u.id AND r.finished_at IS NOT NULL AND r.redacted_at IS NULL`,
      [rows.map((r) => r.id), kept.map((k) => k.qrcode), kept.map((k) => k.result), kept.map((k) => k.options), at],
    );
    return { changed: updated.rowCount ?? 0, last: lastOf(rows) };
  });
}

/**
 * The batch's finished deliveries, locked (a worker's redelivery of one
 * waits for the batch, then finds it gone); the DELETE checks again that
 * each is still finished.
 */
export async function deleteFinishedWebhookDeliveries(db: PgDb, finishedBefore: Date, batch: PassBatch): Promise<PassBatchResult> {
  return db.tx(async (run) => {
    const q = finishedBatchQuery(finishedBefore, { limit: batch.limit, after: batch.after && { at: batch.after.createdAt, id: batch.after.id } });
    await run(BATCH_PLANNER);
    const { rows } = await run<{ id: string; finished_at: Date }>(numbered(`${q.sql} FOR UPDATE SKIP LOCKED`), q.params);
    if (rows.length === 0) return { changed: 0, last: null };
    const deleted = await run('DELETE FROM webhook_deliveries WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL', [rows.map((r) => r.id)]);
    const last = rows[rows.length - 1]!;
    return { changed: deleted.rowCount ?? 0, last: { createdAt: last.finished_at, id: last.id } };
  });
}

/**
 * An UPDATE or DELETE leaves the old row version (names and all) in the
 * table's pages as a dead tuple until VACUUM removes it; autovacuum gets
 * there eventually, this does it now. VACUUM cannot run in a transaction
 * and takes only a lock that lets reads and writes go on. It makes the old
 * versions unreachable and their space reusable, but does not zero it:
 * measured, the bytes stay in the table's file until new rows overwrite
 * them (VACUUM FULL, which locks verifications out, rewrites the file
 * without them). WAL segments, WAL archives, replicas and base backups keep
 * them until they rotate out (SECURITY.md).
 */
export async function vacuumRedacted(db: PgDb): Promise<PurgeReport> {
  try {
    await db.maintenance(['VACUUM verify_transactions', 'VACUUM request_errors', 'VACUUM rechecks']);
    return {
      complete: true,
      detail: 'VACUUM of verify_transactions, request_errors and rechecks done: old row versions unreachable, their space reused by new rows; VACUUM FULL rewrites the files without them; WAL, archives, replicas and base backups keep them until they rotate out',
    };
  } catch (err) {
    return { complete: false, detail: `VACUUM failed (${(err as Error).message}); autovacuum removes the old row versions later` };
  }
}

/** Judged by the database clock, like every lease expiry on PostgreSQL. */
export async function firstLiveLease(db: PgDb, _now: Date): Promise<string | null> {
  const { rows } = await db.run<{ id: string }>('SELECT id FROM instance_leases WHERE expires_at >= clock_timestamp() ORDER BY id LIMIT 1');
  return rows[0]?.id ?? null;
}
