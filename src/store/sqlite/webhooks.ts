// Webhook endpoints and deliveries on SQLite (statements in ../sql/webhooks.ts).
import type { Page } from '../../domain/ports/store.js';
import type { DeliveryNext, DeliveryQuery, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../domain/webhooks/types.js';
import { toPage } from '../cursor.js';
import * as sql from '../sql/webhooks.js';
import type { Lite } from './connection.js';
import { mapError } from './errors.js';

type EndpointRow = sql.EndpointRow<number>;
type DeliveryRow = sql.DeliveryRow<number, string>;

const map = sql.webhookMappers<number, string>({ date: (ms) => new Date(ms), json: <T>(text: string) => JSON.parse(text) as T });
const ms = (at: Date) => at.getTime();

export async function createWebhookEndpoint(lite: Lite, e: WebhookEndpoint): Promise<void> {
  try {
    lite.sql(sql.INSERT_ENDPOINT).run(...sql.endpointValues(e, ms));
  } catch (err) {
    throw mapError(err);
  }
}

export async function getWebhookEndpoint(lite: Lite, id: string): Promise<WebhookEndpoint | null> {
  const r = lite.sql(sql.GET_ENDPOINT).get(id) as EndpointRow | undefined;
  return r ? map.endpoint(r) : null;
}

export async function listWebhookEndpoints(lite: Lite, accountId: string): Promise<WebhookEndpoint[]> {
  return (lite.sql(sql.LIST_ENDPOINTS).all(accountId) as EndpointRow[]).map(map.endpoint);
}

export async function removeWebhookEndpoint(lite: Lite, id: string, at: Date): Promise<boolean> {
  return lite.sql(sql.REMOVE_ENDPOINT).run(ms(at), id).changes === 1;
}

// One statement, so one write lock: another process's claim runs before or
// after it, never between the read and the update.
//
// Claims and finishes go through the group commit (group-commit.ts), beside
// the verifications' writes: on their own, each was a transaction and a
// synchronous=FULL commit per event. A claim is handed over only once the
// WAL is synced past it: it may have read a settle's deliveries that were
// committed but not yet on disk, and an event must never announce a charge
// that power loss could still take back. The sync is the one the settles
// wait for anyway (no CPU, a few milliseconds). A finish does not wait, and
// rides with the next batch of settles rather than committing on its own
// (group-commit.ts): a lost one sends the event again, which at-least-once
// allows.
export const CLAIM = `UPDATE webhook_deliveries SET claim = ?, lease_until = ?
  WHERE id IN (SELECT id FROM webhook_deliveries
               WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
               ORDER BY next_attempt_at LIMIT ?)
  RETURNING *`;

export async function claimWebhookDeliveries(lite: Lite, q: { claim: string; now: Date; leaseMs: number; limit: number }): Promise<WebhookDelivery[]> {
  const now = ms(q.now);
  const rows = await lite.writes.run(() => lite.sql(CLAIM).all(q.claim, now + q.leaseMs, now, now, q.limit) as DeliveryRow[]);
  return rows.map(map.delivery).sort((a, b) => ms(a.nextAttemptAt) - ms(b.nextAttemptAt));
}

const FINISH = `UPDATE webhook_deliveries
  SET attempts = json_insert(attempts, '$[#]', json(?)), state = ?, next_attempt_at = coalesce(?, next_attempt_at),
      delivered_at = coalesce(?, delivered_at), finished_at = ?, claim = NULL, lease_until = NULL
  WHERE id = ? AND claim = ?`;

export async function finishWebhookAttempt(lite: Lite, id: string, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<boolean> {
  const nextAt = next.state === 'pending' ? ms(next.nextAttemptAt) : null;
  const deliveredAt = next.state === 'delivered' ? ms(attempt.at) : null;
  const finishedAt = next.state === 'pending' ? null : ms(attempt.at);
  const stored = sql.storedAttempt(attempt);
  return lite.writes.run(() => lite.sql(FINISH).run(stored, next.state, nextAt, deliveredAt, finishedAt, id, claim).changes === 1, false, { ride: true });
}

export async function getWebhookDelivery(lite: Lite, id: string): Promise<WebhookDelivery | null> {
  const r = lite.sql(sql.GET_DELIVERY).get(id) as DeliveryRow | undefined;
  return r ? map.delivery(r) : null;
}

export async function listWebhookDeliveries(lite: Lite, q: DeliveryQuery): Promise<Page<WebhookDelivery>> {
  const page = sql.deliveryPageQuery(q, (at) => at);
  return toPage((lite.sql(page.sql).all(...page.params) as DeliveryRow[]).map(map.delivery), q.limit, (d) => d.createdAt);
}

export async function redeliverWebhook(lite: Lite, id: string, now: Date): Promise<boolean> {
  return lite.sql(sql.REDELIVER).run(ms(now), id).changes === 1;
}
