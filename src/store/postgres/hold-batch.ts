// Holds of concurrent requests in one statement (statement-batch.ts). The
// holds in a batch are granted in arrival order, per account, exactly as
// one-by-one holds would be: an account with c credits asked for k holds
// grants the first min(c, k), and the r-th of them sees c − r credits left.
// The accounts are locked in id order, so two processes' batches cannot
// deadlock on them; a failed batch falls back to one batch of one per hold.
//
// Holds commit with synchronous_commit off (see holds.ts).
import type { CreditHold } from '../../domain/types.js';
import type { HoldResult } from '../../domain/ports/store.js';
import type { Run } from './db.js';
import * as row from './rows.js';
import { columns, StatementBatch } from './statement-batch.js';
import { isDeadlock } from './sql.js';

/** Read at COMMIT; set inside the statement (is_local), it applies to that statement's own transaction only. */
export const LAZY_COMMIT = `set_config('synchronous_commit', 'off', true) AS lazy_commit`;

/** Enough to share one statement; small enough to hold few row locks briefly. */
const MAX_BATCH = 128;

// One statement, so one transaction, for one hold or many (a lone hold is a
// batch of one). What each part reads, under READ COMMITTED:
//
// - Every part scans with the one snapshot taken when the statement began.
//   A top-up, release, recovery or another process's hold that commits
//   after that instant is invisible to the scans.
// - `locked` scans that snapshot's row too, but FOR NO KEY UPDATE first
//   waits for any writer of the row to finish, then locks the row's newest
//   committed version and returns that one (EvalPlanQual re-fetch: the
//   version the snapshot saw is replaced). So `l.credits` is the balance
//   under our row lock, and nobody else changes it until we commit.
// - `granted` grants from that locked balance: min(credits, holds asked).
// - `taken`'s UPDATE scans the snapshot's version again, and PostgreSQL
//   computes the new row, and checks it against CHECK (credits >= 0), from
//   that version, before the write finds that a newer version exists and
//   recomputes from it. `a.credits - g.count` was therefore first computed
//   from the snapshot's balance: after a top-up or refund committed between
//   the snapshot and the lock, that is lower than the locked balance the
//   grant came from, and the CHECK aborted the whole batch (issue #37). The
//   balance is written as `g.before - g.count` instead: the row is ours from
//   `locked` until commit, so the version the write lands on holds exactly
//   `g.before`, and both computations give the same, true value.
// - Nothing in `taken`'s WHERE may test the balance: it would be tested on
//   the snapshot's version, and a row that fails there is skipped without a
//   second look at the newer one.
// - That scan of the snapshot's version can also make the UPDATE queue for
//   the old version's tuple lock (when someone share-locks it), which can
//   deadlock with another locker; the victim is tried again
//   (statement-batch.ts, ledger.ts).
//
// A hold row is written only for a credit taken.
const HOLD_MANY = {
  name: 'slipgate_hold_many',
  text: `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) WITH ORDINALITY
       AS t(id, account_id, key_id, created_at, instance_id, arrival)
   ), ranked AS (
     SELECT i.*, row_number() OVER (PARTITION BY i.account_id ORDER BY i.arrival) AS rank FROM input i
   ), wanted AS (
     SELECT account_id, count(*)::int AS asked FROM input GROUP BY account_id
   ), locked AS (
     SELECT a.id, a.credits FROM accounts a JOIN wanted w ON w.account_id = a.id
     WHERE a.deleted_at IS NULL ORDER BY a.id FOR NO KEY UPDATE OF a
   ), granted AS (
     SELECT l.id, l.credits AS before, least(l.credits, w.asked) AS count FROM locked l JOIN wanted w ON w.account_id = l.id
   ), taken AS (
     UPDATE accounts a SET credits = g.before - g.count FROM granted g WHERE a.id = g.id AND g.count > 0
     RETURNING a.id
   ), held AS (
     INSERT INTO credit_holds (id, account_id, key_id, created_at, instance_id)
     SELECT r.id, r.account_id, r.key_id, r.created_at, r.instance_id FROM ranked r JOIN taken t ON t.id = r.account_id JOIN granted g ON g.id = r.account_id
     WHERE r.rank <= g.count
     RETURNING id
   )
   SELECT r.id, h.id IS NOT NULL AS held, (g.before - r.rank)::int AS credits, g.id IS NOT NULL AS live, ${LAZY_COMMIT}
   FROM ranked r LEFT JOIN granted g ON g.id = r.account_id LEFT JOIN held h ON h.id = r.id
   ORDER BY r.arrival`,
};

interface HoldRow {
  held: boolean;
  credits: number | null;
  live: boolean;
}

const result = (r: HoldRow): HoldResult => (r.held ? { status: 'held', credits: r.credits ?? 0 } : { status: r.live ? 'insufficient' : 'no_account' });
/** One hold's parameters, in the statement's column order. */
const params = (h: CreditHold) => [h.id, h.accountId, h.keyId, h.createdAt, h.instanceId ?? null];

export function holdBatch(run: Run): StatementBatch<CreditHold, HoldResult> {
  return new StatementBatch({
    maxBatch: MAX_BATCH,
    retryable: isDeadlock,
    async many(holds) {
      const { rows } = await run<HoldRow & { id: string }>(HOLD_MANY, columns(holds.map(params), row.noNul));
      if (rows.length !== holds.length) throw new Error('hold batch answered a different number of rows');
      return rows.map((r) => ({ ok: true, value: result(r) }));
    },
  });
}
