// Webhook endpoints and deliveries on PostgreSQL (statements in ../sql/webhooks.ts).
import type { Page } from '../../domain/ports/store.js';
import type { DeliveryNext, DeliveryQuery, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import * as sql from '../sql/webhooks.js';
import { time, type PgDb } from './db.js';
import { numbered } from './sql.js';

type EndpointRow = sql.EndpointRow<Date>;
type DeliveryRow = sql.DeliveryRow<Date, unknown>;

const map = sql.webhookMappers<Date, unknown>({ date: (d) => d, json: <T>(value: unknown) => value as T });
const asIs = (at: Date) => at;

export async function createWebhookEndpoint(db: PgDb, e: WebhookEndpoint): Promise<void> {
  await db.run(numbered(sql.INSERT_ENDPOINT), sql.endpointValues(e, asIs));
}

export async function getWebhookEndpoint(db: PgDb, id: string): Promise<WebhookEndpoint | null> {
  const { rows } = await db.run<EndpointRow>(numbered(sql.GET_ENDPOINT), [id]);
  return rows[0] ? map.endpoint(rows[0]) : null;
}

export async function listWebhookEndpoints(db: PgDb, accountId: string): Promise<WebhookEndpoint[]> {
  const { rows } = await db.run<EndpointRow>(numbered(sql.LIST_ENDPOINTS), [accountId]);
  return rows.map(map.endpoint);
}

export async function removeWebhookEndpoint(db: PgDb, id: string, at: Date): Promise<boolean> {
  return (await db.run(numbered(sql.REMOVE_ENDPOINT), [at, id])).rowCount === 1;
}

// SKIP LOCKED: instances claiming at the same moment each take other rows
// instead of waiting for one another; the row lock plus the lease condition,
// re-checked after the lock, hand a delivery to one of them only.
export const CLAIM = `UPDATE webhook_deliveries d SET claim = $1, lease_until = $2
  FROM (SELECT id FROM webhook_deliveries
        WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
        ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED) due
  WHERE d.id = due.id
  RETURNING d.*`;

export async function claimWebhookDeliveries(db: PgDb, q: { claim: string; now: Date; leaseMs: number; limit: number }): Promise<WebhookDelivery[]> {
  const { rows } = await db.run<DeliveryRow>(CLAIM, [q.claim, new Date(q.now.getTime() + q.leaseMs), q.now, q.limit]);
  return rows.map(map.delivery).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
}

const FINISH = `UPDATE webhook_deliveries
  SET attempts = attempts || jsonb_build_array($1::jsonb), state = $2, next_attempt_at = coalesce($3, next_attempt_at),
      delivered_at = coalesce($4, delivered_at), finished_at = $5, claim = NULL, lease_until = NULL
  WHERE id = $6 AND claim = $7`;

export async function finishWebhookAttempt(db: PgDb, id: string, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<boolean> {
  const nextAt = next.state === 'pending' ? next.nextAttemptAt : null;
  const deliveredAt = next.state === 'delivered' ? attempt.at : null;
  const finishedAt = next.state === 'pending' ? null : attempt.at;
  return (await db.run(FINISH, [sql.storedAttempt(attempt), next.state, nextAt, deliveredAt, finishedAt, id, claim])).rowCount === 1;
}

export async function getWebhookDelivery(db: PgDb, id: string): Promise<WebhookDelivery | null> {
  const { rows } = await db.run<DeliveryRow>(numbered(sql.GET_DELIVERY), [id]);
  return rows[0] ? map.delivery(rows[0]) : null;
}

export async function listWebhookDeliveries(db: PgDb, q: DeliveryQuery): Promise<Page<WebhookDelivery>> {
  const page = sql.deliveryPageQuery(q, time);
  const { rows } = await db.run<DeliveryRow>(numbered(page.sql), page.params);
  return toPage(rows.map(map.delivery), q.limit, (d) => d.createdAt);
}

export async function redeliverWebhook(db: PgDb, id: string, now: Date): Promise<boolean> {
  return (await db.run(numbered(sql.REDELIVER), [now, id])).rowCount === 1;
}
