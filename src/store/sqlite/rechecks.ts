// Re-checks on SQLite (statements in ../sql/rechecks.ts). One writer at a
// time, so the bound on an account's unfinished re-checks is exact here.
import type { OpenRechecksQuery } from '../../domain/ports/store-rechecks.js';
import type { Recheck, RecheckFinish } from '../../domain/rechecks/types.js';
import type { NewWebhookDelivery } from '../../domain/webhooks/types.js';
import * as sql from '../sql/rechecks.js';
import { deliveryValues } from '../sql/webhooks.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';

const ms = (at: Date) => at.getTime();
const map = sql.recheckMapper<number>((v) => new Date(v));

export async function createRecheck(lite: Lite, r: Recheck, maxOpen: number): Promise<boolean> {
  try {
    return lite.sql(sql.CREATE_RECHECK).run(...sql.createValues(r, ms, maxOpen)).changes === 1;
  } catch (err) {
    throw mapError(err);
  }
}

export async function getRecheck(lite: Lite, id: string): Promise<Recheck | null> {
  const r = lite.sql(sql.GET_RECHECK).get(id) as sql.RecheckRow<number> | undefined;
  return r ? map(r) : null;
}

export async function openRechecks(lite: Lite, q: OpenRechecksQuery): Promise<Recheck[]> {
  const { sql: text, params } = sql.openQuery(q);
  return (lite.sql(text).all(...params) as sql.RecheckRow<number>[]).map(map);
}

export async function countOpenRechecks(lite: Lite): Promise<number> {
  return (lite.sql(sql.COUNT_OPEN).get() as { n: number }).n;
}

export async function dueRechecks(lite: Lite, now: Date, limit: number): Promise<Recheck[]> {
  return (lite.sql(sql.DUE_RECHECKS).all(ms(now), limit) as sql.RecheckRow<number>[]).map(map);
}

export async function postponeRecheck(lite: Lite, id: string, next: Pick<Recheck, 'attempts' | 'nextAttemptAt' | 'attemptId'>): Promise<boolean> {
  return lite.sql(sql.POSTPONE).run(next.attempts, ms(next.nextAttemptAt), next.attemptId, id).changes === 1;
}

export async function finishRecheck(lite: Lite, id: string, finish: RecheckFinish, deliveries: readonly NewWebhookDelivery[] = []): Promise<boolean> {
  return lite.db
    .transaction((): boolean => {
      if (lite.sql(sql.FINISH).run(finish.outcome, ms(finish.at), finish.result ?? null, id).changes !== 1) return false;
      for (const d of deliveries) lite.stmt.insertDelivery.run(...deliveryValues(d, ms));
      return true;
    })
    .immediate();
}

export async function verificationRecorded(lite: Lite, id: string): Promise<boolean> {
  return lite.sql(sql.RECORDED).get(id) !== undefined;
}
