// Webhook endpoints and their deliveries on MongoDB.
import { Schema, type Connection, type Model } from 'mongoose';
import type { WebhookDeliveryDoc, WebhookEndpointDoc } from './docs.js';
import { NEWEST, OPTIONS, date, optDate, optStr, str } from './schema-fields.js';

const webhookEndpointSchema = new Schema<WebhookEndpointDoc>(
  { _id: str, accountId: str, url: str, events: { type: [String], required: true }, secret: str, createdAt: date, removedAt: optDate },
  OPTIONS,
);
webhookEndpointSchema.index({ accountId: 1, createdAt: 1, _id: 1 });

const webhookAttemptSchema = new Schema(
  { at: date, statusCode: { type: Number, default: null }, error: optStr, durationMs: { type: Number, required: true } },
  { ...OPTIONS, _id: false },
);
const webhookDeliverySchema = new Schema<WebhookDeliveryDoc>(
  {
    _id: str,
    eventId: str,
    endpointId: str,
    accountId: str,
    type: str,
    body: str,
    state: { type: String, enum: ['pending', 'delivered', 'failed'], required: true },
    nextAttemptAt: date,
    attempts: { type: [webhookAttemptSchema], default: [] },
    claim: optStr,
    leaseUntil: optDate,
    deliveredAt: optDate,
    finishedAt: optDate,
    createdAt: date,
  },
  OPTIONS,
);
// The worker's claim: pending and due, oldest due first.
webhookDeliverySchema.index({ state: 1, nextAttemptAt: 1 });
webhookDeliverySchema.index({ accountId: 1, ...NEWEST });
webhookDeliverySchema.index({ endpointId: 1, ...NEWEST });
// The retention pass: finished deliveries, oldest finished first. Not partial
// (FerretDB, the test server, lacks partialFilterExpression): pending ones
// sit at the null end, outside every range the pass reads.
webhookDeliverySchema.index({ finishedAt: 1, _id: 1 });

export interface WebhookModels {
  webhookEndpoints: Model<WebhookEndpointDoc>;
  webhookDeliveries: Model<WebhookDeliveryDoc>;
}

export function defineWebhookModels(conn: Connection): WebhookModels {
  return {
    webhookEndpoints: conn.model<WebhookEndpointDoc>('WebhookEndpoint', webhookEndpointSchema, 'webhook_endpoints'),
    webhookDeliveries: conn.model<WebhookDeliveryDoc>('WebhookDelivery', webhookDeliverySchema, 'webhook_deliveries'),
  };
}
