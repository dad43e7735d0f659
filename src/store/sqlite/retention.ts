// Personal data retention and erasure on SQLite (domain/retention.ts). Each
// batch is one write of the group commit (group-commit.ts): it shares the
// verify path's transaction and its fsync off the event loop, so a batch
// never makes the loop wait for the disk, and holds the write lock for the
// few milliseconds its rows take.
import type { PersonalDataCounts, PersonalDataScope, Redact } from '../../domain/ports/store.js';
import type { VerifiedSlip } from '../../domain/types.js';
import { personalDataScope } from '../sql/retention-scope.js';
import type { Lite } from './connection.js';

const ms = (value: number) => value;

export async function countPersonalData(lite: Lite, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  const f = personalDataScope(scope, ms);
  const count = (sql: string) => (lite.db.prepare(sql).get(...f.params) as { n: number }).n;
  return {
    verifyTransactions: count(`SELECT count(*) AS n FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where}`),
    requestErrors: count(`SELECT count(*) AS n FROM request_errors WHERE ${f.where}`),
  };
}

export async function redactVerifyTransactions(lite: Lite, scope: PersonalDataScope, redact: Redact, at: Date, limit: number): Promise<number> {
  const f = personalDataScope(scope, ms);
  return lite.writes.run(() => {
    const rows = lite.db
      .prepare(`SELECT id, qrcode, response FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where} ORDER BY created_at LIMIT ?`)
      .all(...f.params, limit) as { id: string; qrcode: string; response: string }[];
    const update = lite.db.prepare('UPDATE verify_transactions SET qrcode = ?, response = ?, redacted_at = ? WHERE id = ? AND redacted_at IS NULL');
    let redacted = 0;
    for (const row of rows) {
      const kept = redact({ qrcode: row.qrcode, response: parsed(row.response) });
      redacted += update.run(kept.qrcode, JSON.stringify(kept.response), at.getTime(), row.id).changes;
    }
    return redacted;
  });
}

/** A row whose JSON does not parse is redacted all the same (to the footprint), not left to fail every pass. */
function parsed(text: string): VerifiedSlip {
  try {
    return JSON.parse(text) as VerifiedSlip;
  } catch {
    return {} as VerifiedSlip;
  }
}

export async function deleteRequestErrors(lite: Lite, scope: PersonalDataScope, limit: number): Promise<number> {
  const f = personalDataScope(scope, ms);
  return lite.writes.run(
    () => lite.db.prepare(`DELETE FROM request_errors WHERE id IN (SELECT id FROM request_errors WHERE ${f.where} ORDER BY created_at LIMIT ?)`).run(...f.params, limit).changes,
  );
}

export async function firstLiveLease(lite: Lite, now: Date): Promise<string | null> {
  const row = lite.db.prepare('SELECT id FROM instance_leases WHERE expires_at >= ? ORDER BY id LIMIT 1').get(now.getTime()) as { id: string } | undefined;
  return row?.id ?? null;
}
