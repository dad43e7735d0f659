// Group commit of settles across requests. Each settle must be on disk
// before its caller is answered, and on PostgreSQL a durable commit waits
// for a WAL flush; so the settles that arrive while one batch commits go
// together in the next, as one statement and one flush (statement-batch.ts).
import type { VerifyTransactionRecord } from '../../domain/types.js';
import { StoreError } from '../../domain/ports/store.js';
import type { Run } from './db.js';
import * as row from './rows.js';
import { columns, StatementBatch } from './statement-batch.js';
import { isDeadlock } from './sql.js';
import { DELIVERY_COLUMNS, deliveryValues } from '../sql/webhooks.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';

/** Enough to share one flush; small enough that a batch never holds many row locks long. */
const MAX_BATCH = 128;

// The settle of one hold or many (a lone settle is a batch of one).
// Deleting the hold is the claim: a concurrent release or recovery of the
// same hold waits on the row and then finds it gone; a hold already gone
// (recovered) is simply not claimed, and only its own caller hears of it.
// The accounts are locked in id order, as the hold batch locks them, so the
// two never deadlock.
const SETTLE_CTES = `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[], $9::text[],
                          $10::text[], $11::integer[], $12::jsonb[], $13::timestamptz[], $14::text[], $15::text[])
       AS t(${row.VT_COLUMNS})
   ), claimed AS (
     DELETE FROM credit_holds h USING input i WHERE h.id = i.id AND h.account_id = i.account_id RETURNING h.id, h.account_id
   ), recorded AS (
     INSERT INTO verify_transactions (${row.VT_COLUMNS})
     SELECT ${row.VT_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')} FROM input i JOIN claimed c ON c.id = i.id
     RETURNING id
   ), locked AS (
     SELECT a.id FROM accounts a WHERE a.id IN (SELECT account_id FROM input) ORDER BY a.id FOR NO KEY UPDATE
   ), charged AS (
     UPDATE accounts a SET usage = a.usage + n.count
     FROM (SELECT account_id, count(*)::int AS count FROM claimed GROUP BY account_id) n JOIN locked l ON l.id = n.account_id
     WHERE a.id = n.account_id
   )`;

const SETTLE_MANY = { name: 'slipgate_settle_many', text: `${SETTLE_CTES} SELECT id FROM recorded` };

// The same, with the webhook deliveries of the batch (the outbox) inserted
// for the holds it claimed only: an event exists iff its charge does. A
// batch without any keeps the statement above, so accounts without
// endpoints pay nothing for webhooks.
const SETTLE_MANY_WITH_OUTBOX = {
  name: 'slipgate_settle_many_outbox',
  text: `${SETTLE_CTES}, outbox AS (
     INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
     SELECT ${DELIVERY_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')}
     FROM unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::timestamptz[], $24::timestamptz[], $25::text[], $26::timestamptz[], $27::text[])
       AS d(${DELIVERY_COLUMNS}, hold_id)
     JOIN claimed c ON c.id = d.hold_id
   )
   SELECT id FROM recorded`,
};

/** A settle and the webhook deliveries (the outbox) it writes with it. */
export interface Settle {
  record: VerifyTransactionRecord;
  deliveries: readonly NewWebhookDelivery[];
}

/** The deliveries of a batch, one array per column, each row naming the hold whose settle writes it. */
function deliveryColumns(settles: readonly Settle[]): unknown[][] {
  return columns(
    settles.flatMap((s) => s.deliveries.map((d) => [...deliveryValues(d, (at) => at), s.record.id])),
    row.noNul,
  );
}

/** Runs the settle statement for `settles`; the ids of the holds it claimed (a hold already gone is not). */
export async function settleMany(run: Run, settles: readonly Settle[]): Promise<Set<string>> {
  const vts = columns(settles.map((s) => row.vtParams(s.record)), row.noNul);
  const withOutbox = settles.some((s) => s.deliveries.length > 0);
  const { rows } = await run<{ id: string }>(withOutbox ? SETTLE_MANY_WITH_OUTBOX : SETTLE_MANY, withOutbox ? [...vts, ...deliveryColumns(settles)] : vts);
  return new Set(rows.map((r) => r.id));
}

/** A settle whose hold is gone (recovery ended it): its caller hears of it, nobody else. */
export const holdGone = (id: string) => new StoreError('conflict', `hold ${id} no longer exists`);

/** Settles of concurrent requests, one statement and one WAL flush per batch. */
export function settleBatch(run: Run): StatementBatch<Settle, void> {
  return new StatementBatch<Settle, void>({
    maxBatch: MAX_BATCH,
    retryable: isDeadlock,
    async many(settles) {
      const settled = await settleMany(run, settles);
      return settles.map(({ record: r }) => (settled.has(r.id) ? { ok: true, value: undefined } : { ok: false, error: holdGone(r.id) }));
    },
  });
}
