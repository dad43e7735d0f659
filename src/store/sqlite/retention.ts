// Personal data retention and erasure on SQLite (domain/retention.ts). Each
// batch is one write of the group commit (group-commit.ts): it shares the
// verify path's transaction and its fsync off the event loop, so a batch
// never makes the loop wait for the disk, and holds the write lock for the
// few milliseconds its rows take.
import type { PassBatch, PassBatchResult, PersonalDataCounts, PersonalDataScope, PurgeReport, Redact, RedactRecheck } from '../../domain/ports/store.js';
import type { VerifiedSlip } from '../../domain/types.js';
import { passBatchQuery, personalDataScope, type PassTable } from '../sql/retention-scope.js';
import { finishedBatchQuery } from '../sql/webhooks.js';
import type { Lite } from './connection.js';

const ms = (value: number) => value;

export async function countPersonalData(lite: Lite, scope: PersonalDataScope): Promise<PersonalDataCounts> {
  const f = personalDataScope(scope, ms);
  const count = (sql: string) => (lite.db.prepare(sql).get(...f.params) as { n: number }).n;
  return {
    verifyTransactions: count(`SELECT count(*) AS n FROM verify_transactions WHERE redacted_at IS NULL AND ${f.where}`),
    requestErrors: count(`SELECT count(*) AS n FROM request_errors WHERE ${f.where}`),
    rechecks: count(`SELECT count(*) AS n FROM rechecks WHERE finished_at IS NOT NULL AND redacted_at IS NULL AND ${f.where}`),
  };
}

interface Picked {
  id: string;
  created_at: number;
}

/** The next rows of a batch (sql/retention-scope.ts). */
function nextRows<T extends Picked>(lite: Lite, table: PassTable, columns: string, scope: PersonalDataScope, batch: PassBatch): T[] {
  const q = passBatchQuery(table, columns, scope, batch, ms);
  return lite.sql(q.sql).all(...q.params) as T[];
}

const lastOf = (rows: Picked[]): PassBatchResult['last'] => {
  const last = rows[rows.length - 1];
  return last ? { createdAt: new Date(last.created_at), id: last.id } : null;
};

export async function redactVerifyTransactions(lite: Lite, scope: PersonalDataScope, redact: Redact, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return lite.writes.run(() => {
    const rows = nextRows<Picked & { qrcode: string; response: string }>(lite, 'verify_transactions', 'id, created_at, qrcode, response', scope, batch);
    const update = lite.sql('UPDATE verify_transactions SET qrcode = ?, response = ?, line_user_id = ?, redacted_at = ? WHERE id = ? AND redacted_at IS NULL');
    let changed = 0;
    for (const row of rows) {
      const kept = redact({ qrcode: row.qrcode, response: parsed(row.response) });
      changed += update.run(kept.qrcode, JSON.stringify(kept.response), kept.lineUserId, at.getTime(), row.id).changes;
    }
    return { changed, last: lastOf(rows) };
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

export async function deleteRequestErrors(lite: Lite, scope: PersonalDataScope, batch: PassBatch): Promise<PassBatchResult> {
  return lite.writes.run(() => {
    const rows = nextRows(lite, 'request_errors', 'id, created_at', scope, batch);
    const remove = lite.sql('DELETE FROM request_errors WHERE id = ?');
    let changed = 0;
    for (const row of rows) changed += remove.run(row.id).changes;
    return { changed, last: lastOf(rows) };
  });
}

export async function redactFinishedRechecks(lite: Lite, scope: PersonalDataScope, redact: RedactRecheck, at: Date, batch: PassBatch): Promise<PassBatchResult> {
  return lite.writes.run(() => {
    const rows = nextRows<Picked & { qrcode: string; result: string | null; options: string | null }>(lite, 'rechecks', 'id, created_at, qrcode, result, options', scope, batch);
    // Still finished and unredacted: the same write transaction, so nothing changed it since the read.
    const update = lite.sql('UPDATE rechecks SET qrcode = ?, result = ?, options = ?, line_user_id = NULL, redacted_at = ? WHERE id = ? AND finished_at IS NOT NULL AND redacted_at IS NULL');
    let changed = 0;
    for (const row of rows) {
      const kept = redact({ qrcode: row.qrcode, result: row.result, options: row.options });
      changed += update.run(kept.qrcode, kept.result, kept.options, at.getTime(), row.id).changes;
    }
    return { changed, last: lastOf(rows) };
  });
}

export async function deleteFinishedWebhookDeliveries(lite: Lite, finishedBefore: Date, batch: PassBatch): Promise<PassBatchResult> {
  return lite.writes.run(() => {
    const q = finishedBatchQuery(ms(finishedBefore.getTime()), { limit: batch.limit, after: batch.after && { at: batch.after.createdAt.getTime(), id: batch.after.id } });
    const rows = lite.sql(q.sql).all(...q.params) as { id: string; finished_at: number }[];
    // Still finished (the same write transaction, so nothing changed it since the read).
    const remove = lite.sql('DELETE FROM webhook_deliveries WHERE id = ? AND finished_at IS NOT NULL');
    let changed = 0;
    for (const row of rows) changed += remove.run(row.id).changes;
    const last = rows[rows.length - 1];
    return { changed, last: last ? { createdAt: new Date(last.finished_at), id: last.id } : null };
  });
}

/** Tries spaced out over about six seconds; each try returns at once rather than block the event loop. */
const CHECKPOINT_TRIES = 8;

/**
 * secure_delete zeroes what a pass freed in the pages it wrote, but the WAL
 * still holds older copies of those pages, names and all, until it is
 * overwritten. A TRUNCATE checkpoint copies the WAL into the database file
 * and cuts the WAL to zero bytes. It must wait for every other connection
 * (cluster workers, a CLI) to leave the WAL, so it is tried without waiting
 * (busy timeout 0, the loop never blocks) a few times, then reported.
 */
export async function truncateWal(lite: Lite): Promise<PurgeReport> {
  const timeout = lite.db.pragma('busy_timeout', { simple: true }) as number;
  for (let attempt = 1; ; attempt++) {
    lite.failure.check();
    lite.db.pragma('busy_timeout = 0');
    let busy: number;
    try {
      // A checkpoint that cannot finish reports busy = 1 rather than throw.
      [{ busy }] = lite.db.pragma('wal_checkpoint(TRUNCATE)') as [{ busy: number }];
    } finally {
      lite.db.pragma(`busy_timeout = ${timeout}`);
    }
    if (busy === 0) return { complete: true, detail: 'WAL checkpointed and truncated to 0 bytes; freed space zeroed (secure_delete)' };
    if (attempt === CHECKPOINT_TRIES) {
      return { complete: false, detail: `WAL not truncated: another connection kept it in use through ${CHECKPOINT_TRIES} tries; it still holds old copies of redacted records until the next pass or checkpoint` };
    }
    await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
  }
}

export async function firstLiveLease(lite: Lite, now: Date): Promise<string | null> {
  const row = lite.db.prepare('SELECT id FROM instance_leases WHERE expires_at >= ? ORDER BY id LIMIT 1').get(now.getTime()) as { id: string } | undefined;
  return row?.id ?? null;
}
