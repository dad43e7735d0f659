// Personal data retention and erasure on PostgreSQL (domain/retention.ts).
// A batch is one short transaction: its rows are locked with SKIP LOCKED, so
// two instances running a pass at once (a lease that changed hands) take
// different rows instead of waiting on each other, and settles, which only
// insert new records, never wait on it at all.
import type { PersonalDataCounts, PersonalDataScope, Redact } from '../../domain/ports/store.js';
import type { VerifiedSlip } from '../../domain/types.js';
import { personalDataScope } from '../sql/retention-scope.js';
import { time, type PgDb } from './db.js';
import { numbered } from './sql.js';

export async function countPersonalData(db: PgDb, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  const f = personalDataScope(scope, time);
  const count = async (sql: string) => (await db.run<{ n: number }>(numbered(sql), f.params)).rows[0]!.n;
  const [verifyTransactions, requestErrors] = await Promise.all([
    count(`SELECT count(*)::int AS n FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where}`),
    count(`SELECT count(*)::int AS n FROM request_errors WHERE ${f.where}`),
  ]);
  return { verifyTransactions, requestErrors };
}

export async function redactVerifyTransactions(db: PgDb, scope: PersonalDataScope, redact: Redact, at: Date, limit: number): Promise<number> {
  const f = personalDataScope(scope, time);
  return db.tx(async (run) => {
    const { rows } = await run<{ id: string; qrcode: string; response: VerifiedSlip }>(
      numbered(`SELECT id, qrcode, response FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where} ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED`),
      [...f.params, limit],
    );
    if (rows.length === 0) return 0;
    const kept = rows.map((r) => redact({ qrcode: r.qrcode, response: r.response }));
    // One statement for the batch: the new values travel as three parallel arrays.
    const updated = await run(
      `UPDATE verify_transactions v SET qrcode = u.qrcode, response = u.response::jsonb, redacted_at = $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, qrcode, response)
       WHERE v.id = u.id AND v.redacted_at IS NULL`,
      [rows.map((r) => r.id), kept.map((k) => k.qrcode), kept.map((k) => JSON.stringify(k.response)), at],
    );
    return updated.rowCount ?? 0;
  });
}

export async function deleteRequestErrors(db: PgDb, scope: PersonalDataScope, limit: number): Promise<number> {
  const f = personalDataScope(scope, time);
  const r = await db.run(
    numbered(`DELETE FROM request_errors WHERE id IN (SELECT id FROM request_errors WHERE ${f.where} ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`),
    [...f.params, limit],
  );
  return r.rowCount ?? 0;
}

/** Judged by the database clock, like every lease expiry on PostgreSQL. */
export async function firstLiveLease(db: PgDb, _now: Date): Promise<string | null> {
  const { rows } = await db.run<{ id: string }>('SELECT id FROM instance_leases WHERE expires_at >= clock_timestamp() ORDER BY id LIMIT 1');
  return rows[0]?.id ?? null;
}
