// Re-checks on PostgreSQL (statements in ../sql/rechecks.ts).
import type { OpenRechecksQuery } from '../../domain/ports/store-rechecks.js';
import type { Recheck, RecheckFinish } from '../../domain/rechecks/types.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import * as sql from '../sql/rechecks.js';
import { DELIVERY_COLUMNS, deliveryValues } from '../sql/webhooks.js';
import type { PgDb } from './db.js';
import { numbered } from './sql.js';

type Row = sql.RecheckRow<Date>;
const map = sql.recheckMapper<Date>((d) => d);
const asIs = (at: Date) => at;
const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

export async function createRecheck(db: PgDb, r: Recheck, maxOpen: number): Promise<boolean> {
  return (await db.run(numbered(sql.CREATE_RECHECK), sql.createValues(r, asIs, maxOpen))).rowCount === 1;
}

export async function getRecheck(db: PgDb, id: string): Promise<Recheck | null> {
  const { rows } = await db.run<Row>(numbered(sql.GET_RECHECK), [id]);
  return rows[0] ? map(rows[0]) : null;
}

export async function openRechecks(db: PgDb, q: OpenRechecksQuery): Promise<Recheck[]> {
  const { sql: text, params } = sql.openQuery(q);
  return (await db.run<Row>(numbered(text), params)).rows.map(map);
}

export async function countOpenRechecks(db: PgDb): Promise<number> {
  return Number((await db.run<{ n: string }>(sql.COUNT_OPEN)).rows[0]!.n);
}

export async function dueRechecks(db: PgDb, now: Date, limit: number): Promise<Recheck[]> {
  return (await db.run<Row>(numbered(sql.DUE_RECHECKS), [now, limit])).rows.map(map);
}

export async function postponeRecheck(db: PgDb, id: string, next: Pick<Recheck, 'attempts' | 'nextAttemptAt' | 'attemptId'>): Promise<boolean> {
  return (await db.run(numbered(sql.POSTPONE), [next.attempts, next.nextAttemptAt, next.attemptId, id])).rowCount === 1;
}

export async function finishRecheck(db: PgDb, id: string, finish: RecheckFinish, deliveries: readonly NewWebhookDelivery[] = []): Promise<boolean> {
  return db.tx(async (run) => {
    if ((await run(numbered(sql.FINISH), [finish.outcome, finish.at, finish.result ?? null, id])).rowCount !== 1) return false;
    for (const d of deliveries) await run(INSERT_DELIVERY, deliveryValues(d, asIs));
    return true;
  });
}

export async function verificationRecorded(db: PgDb, id: string): Promise<boolean> {
  return (await db.run(numbered(sql.RECORDED), [id])).rowCount === 1;
}
