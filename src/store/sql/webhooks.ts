// Webhook endpoints and deliveries on the SQL engines: row shapes, their
// mapping, and the statements both engines run. Placeholders are `?`; the
// PostgreSQL adapter renumbers them. Times: SQLite epoch ms, PostgreSQL
// timestamptz; attempts: a JSON array (text on SQLite, jsonb on PostgreSQL).
import { decodeCursor } from '../cursor.js';
import type { DeliveryQuery, NewWebhookDelivery, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../domain/webhooks/types.js';

export interface EndpointRow<Time> {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: Time;
  removed_at: Time | null;
}

export interface DeliveryRow<Time, Json> {
  id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  type: string;
  body: string;
  state: string;
  next_attempt_at: Time;
  attempts: Json;
  delivered_at: Time | null;
  created_at: Time;
}

/** An attempt as stored in the JSON array (time in epoch ms on every engine). */
interface StoredAttempt {
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export const storedAttempt = (a: WebhookAttempt): string =>
  JSON.stringify({ at: a.at.getTime(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs } satisfies StoredAttempt);

export function webhookMappers<Time, Json>(codec: { date(value: Time): Date; json<T>(value: Json): T }) {
  const endpoint = (r: EndpointRow<Time>): WebhookEndpoint => ({
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    events: JSON.parse(r.events) as WebhookEventType[],
    sealedSecret: r.secret,
    createdAt: codec.date(r.created_at),
    removedAt: r.removed_at === null ? null : codec.date(r.removed_at),
  });
  const delivery = (r: DeliveryRow<Time, Json>): WebhookDelivery => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    accountId: r.account_id,
    type: r.type as WebhookEventType,
    body: r.body,
    state: r.state as WebhookDelivery['state'],
    nextAttemptAt: codec.date(r.next_attempt_at),
    attempts: codec.json<StoredAttempt[]>(r.attempts).map((a) => ({ ...a, at: new Date(a.at) })),
    deliveredAt: r.delivered_at === null ? null : codec.date(r.delivered_at),
    createdAt: codec.date(r.created_at),
  });
  return { endpoint, delivery };
}

export const DELIVERY_COLUMNS = 'id, event_id, endpoint_id, account_id, type, body, state, next_attempt_at, created_at, claim, lease_until';

/** A new delivery's values in DELIVERY_COLUMNS order: pending, due at once, claimed by its lease's holder when it has one. */
export const deliveryValues = (d: NewWebhookDelivery, time: (at: Date) => unknown): unknown[] => [
  d.id,
  d.eventId,
  d.endpointId,
  d.accountId,
  d.type,
  d.body,
  'pending',
  time(d.createdAt),
  time(d.createdAt),
  d.lease?.claim ?? null,
  d.lease ? time(d.lease.until) : null,
];

export const INSERT_ENDPOINT = 'INSERT INTO webhook_endpoints (id, account_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)';
export const endpointValues = (e: WebhookEndpoint, time: (at: Date) => unknown): unknown[] => [e.id, e.accountId, e.url, JSON.stringify(e.events), e.sealedSecret, time(e.createdAt)];

export const LIST_ENDPOINTS = 'SELECT * FROM webhook_endpoints WHERE account_id = ? AND removed_at IS NULL ORDER BY created_at, id';
export const REMOVE_ENDPOINT = 'UPDATE webhook_endpoints SET removed_at = ? WHERE id = ? AND removed_at IS NULL';
export const GET_ENDPOINT = 'SELECT * FROM webhook_endpoints WHERE id = ?';
export const GET_DELIVERY = 'SELECT * FROM webhook_deliveries WHERE id = ?';
export const REDELIVER = "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, finished_at = NULL WHERE id = ?";

/**
 * A retention batch's read: the next `limit` finished deliveries (delivered
 * or failed) that finished before the cutoff, after the cursor (its
 * `createdAt` is the finish time), oldest finished first: a range of the
 * partial index webhook_deliveries_finished that starts at the cursor.
 */
export function finishedBatchQuery(finishedBefore: unknown, batch: { limit: number; after: { at: unknown; id: string } | null }): { sql: string; params: unknown[] } {
  const after = batch.after ? ' AND finished_at >= ? AND (finished_at, id) > (?, ?)' : '';
  const afterParams = batch.after ? [batch.after.at, batch.after.at, batch.after.id] : [];
  return {
    sql: `SELECT id, finished_at FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ?${after} ORDER BY finished_at, id LIMIT ?`,
    params: [finishedBefore, ...afterParams, batch.limit],
  };
}

/** Newest first, by account or endpoint (each has an index in that order). */
export function deliveryPageQuery(q: DeliveryQuery, time: (ms: number) => unknown): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (q.endpointId) {
    clauses.push('endpoint_id = ?');
    params.push(q.endpointId);
  }
  if (q.accountId) {
    clauses.push('account_id = ?');
    params.push(q.accountId);
  }
  if (q.after) {
    const c = decodeCursor(q.after);
    clauses.push('(created_at < ? OR (created_at = ? AND id < ?))');
    params.push(time(c.at), time(c.at), c.id);
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  return { sql: `SELECT * FROM webhook_deliveries ${where} ORDER BY created_at DESC, id DESC LIMIT ?`, params: [...params, q.limit + 1] };
}
