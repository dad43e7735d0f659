// Webhooks over the GraphQL admin API of a real server: support registers
// (the secret in that answer only), viewers read endpoints and deliveries
// with their attempts, refusals change nothing, and redelivery sends again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually } from '../helpers/child.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const ADD = `mutation($accountId: ID!, $url: String!, $events: [WebhookEventType!]) {
  addWebhookEndpoint(accountId: $accountId, url: $url, events: $events, reason: "go live") { secret endpoint { id url events accountId removedAt } }
}`;
const DELIVERIES = `query($id: ID!) { account(id: $id) {
  webhookEndpoints { id url events }
  webhookDeliveries(first: 10) { nodes { id eventId type state body nextAttemptAt attempts { statusCode error durationMs } } pageInfo { hasNextPage } }
} }`;

describe('GraphQL admin API: webhooks', () => {
  let app: GraphqlTestApp;
  let receiver: Receiver;
  let up = false;
  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: up ? 200 : 500 }));
    app = await startGraphqlApp({ env: { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '3600000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it('support registers an endpoint, the secret shows once; viewers read it without; refusals write nothing', async () => {
    const { accountId } = await app.account(1);
    expect(errorCodes(await app.gql('viewer', ADD, { accountId, url: receiver.url }))).toEqual(['FORBIDDEN']);
    // Metadata and link-local targets are refused even with WEBHOOK_ALLOW_PRIVATE=true.
    for (const url of ['http://shop.example/hooks', `${app.adminUrl}/graphql`, 'https://u:p@shop.example/x', 'https://169.254.169.254/latest/meta-data/', 'https://[fe80::1]/x', 'https://metadata.google.internal/']) {
      expect(errorCodes(await app.gql('support', ADD, { accountId, url }))).toEqual(['BAD_USER_INPUT']);
    }
    expect(errorCodes(await app.gql('support', ADD, { accountId: 'acc_missing', url: receiver.url }))).toEqual(['NOT_FOUND']);
    expect(await app.store.listWebhookEndpoints(accountId)).toEqual([]);

    const added = dataOf(await app.gql('support', ADD, { accountId, url: receiver.url, events: ['VERIFICATION_SUCCEEDED'] })).addWebhookEndpoint;
    expect(added.secret).toMatch(/^whsec_/);
    expect(added.endpoint).toEqual({ id: expect.stringMatching(/^whe_/), url: receiver.url, events: ['VERIFICATION_SUCCEEDED'], accountId, removedAt: null });
    const read = await app.gql('viewer', DELIVERIES, { id: accountId });
    expect(dataOf(read).account.webhookEndpoints).toEqual([{ id: added.endpoint.id, url: receiver.url, events: ['VERIFICATION_SUCCEEDED'] }]);
    expect(read.text).not.toContain(added.secret);
    // No field anywhere reads a secret back.
    expect(errorCodes(await app.gql('admin', `{ account(id: "${accountId}") { webhookEndpoints { secret } } }`))).not.toEqual([]);
    const events = await app.store.listAdminEvents({ targetId: added.endpoint.id, limit: 5 });
    expect(events.items).toEqual([expect.objectContaining({ action: 'addWebhookEndpoint', actor: expect.stringMatching(/^admin:.*support-token/), reason: 'go live' })]);
    expect(JSON.stringify(events.items)).not.toContain('whsec_');
  });

  it('shows deliveries with their attempts, and support redelivers one', async () => {
    const { accountId, apiKey } = await app.account(1);
    const endpointId = dataOf(await app.gql('support', ADD, { accountId, url: receiver.url })).addWebhookEndpoint.endpoint.id;
    expect((await app.verify(apiKey, sandboxQr({ amount: 42 }))).status).toBe(200);
    // The endpoint answers 500: one attempt, and the next one an hour away (WEBHOOK_RETRY_BASE_MS).
    let delivery: any;
    await eventually(async () => {
      delivery = dataOf(await app.gql('viewer', DELIVERIES, { id: accountId })).account.webhookDeliveries.nodes[0];
      return delivery?.attempts.length === 1;
    });
    expect(delivery).toMatchObject({ type: 'VERIFICATION_SUCCEEDED', state: 'PENDING', attempts: [{ statusCode: 500, error: 'HTTP 500' }] });
    expect(JSON.parse(delivery.body)).toMatchObject({ id: delivery.eventId, type: 'verification.succeeded', data: { amount: 42 } });
    expect(Date.parse(delivery.nextAttemptAt)).toBeGreaterThan(Date.now() + 60_000);

    const redeliver = `mutation($id: ID!) { redeliverWebhook(id: $id, reason: "fixed") { id state } }`;
    expect(errorCodes(await app.gql('viewer', redeliver, { id: delivery.id }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('support', redeliver, { id: 'whd_missing' }))).toEqual(['NOT_FOUND']);
    up = true;
    expect(dataOf(await app.gql('support', redeliver, { id: delivery.id })).redeliverWebhook).toEqual({ id: delivery.id, state: 'PENDING' });
    await eventually(async () => dataOf(await app.gql('viewer', `{ webhookDelivery(id: "${delivery.id}") { state } }`)).webhookDelivery.state === 'DELIVERED');
    const done = dataOf(await app.gql('viewer', DELIVERIES, { id: accountId })).account.webhookDeliveries.nodes[0];
    expect(done.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200]);

    const remove = `mutation($id: ID!) { removeWebhookEndpoint(id: $id) { id removedAt } }`;
    expect(errorCodes(await app.gql('viewer', remove, { id: endpointId }))).toEqual(['FORBIDDEN']);
    expect(dataOf(await app.gql('support', remove, { id: endpointId })).removeWebhookEndpoint.removedAt).toEqual(expect.any(String));
    expect(dataOf(await app.gql('viewer', DELIVERIES, { id: accountId })).account.webhookEndpoints).toEqual([]);
  });
});
