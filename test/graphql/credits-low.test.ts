// account.credits_low end to end on a real server: support sets the
// threshold through GraphQL (audited; a viewer may not; nonsense refused),
// real verifications spend the credits, and a real local endpoint receives
// the event once per fall: not again on the verifications below it, and
// again after a top-up brought the balance back and it fell once more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const SET = `mutation ($id: ID!, $at: Int) { setCreditsLowAt(accountId: $id, creditsLowAt: $at, reason: "warn the shop") { id credits creditsLowAt adminEvents { action details } } }`;
const TOP_UP = `mutation ($id: ID!, $key: String!) { topUpCredits(accountId: $id, credits: 2, reason: "paid invoice", idempotencyKey: $key) { entry { id } } }`;

describe('account.credits_low', () => {
  let app: GraphqlTestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startGraphqlApp({ env: { WEBHOOK_POLL_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  const lowEvents = () => receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'account.credits_low');

  it('fires once when credits fall below the threshold, and again only after a top-up re-armed it', async () => {
    const { accountId, apiKey } = await app.account(5);
    await app.webhooks.add('test', accountId, { url: `${receiver.url}/hooks`, events: ['account.credits_low'] });

    expect(errorCodes(await app.gql('viewer', SET, { id: accountId, at: 3 }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('support', SET, { id: accountId, at: 0 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('support', SET, { id: 'acc_nope', at: 3 }))).toEqual(['NOT_FOUND']);
    const set = dataOf(await app.gql('support', SET, { id: accountId, at: 3 })).setCreditsLowAt;
    expect(set).toMatchObject({ id: accountId, credits: 5, creditsLowAt: 3 });
    expect(set.adminEvents[0]).toEqual({ action: 'setCreditsLowAt', details: { from: null, to: 3 } });

    // 5 → 4 → 3 → 2 (the fall) → 1: one event, at 2.
    for (let i = 0; i < 4; i++) expect((await app.verify(apiKey, sandboxQr({ amount: 10 + i }))).body.status).toBe('success');
    await expect.poll(() => lowEvents().length).toBe(1);
    expect(lowEvents()[0]).toMatchObject({ type: 'account.credits_low', data: { accountId, credits: 2, creditsLowAt: 3 } });

    // A top-up back to 3 re-arms it; the next verification falls again.
    dataOf(await app.gql('support', TOP_UP, { id: accountId, key: `low-${accountId}` }));
    expect((await app.verify(apiKey, sandboxQr({ amount: 20 }))).body.status).toBe('success');
    await expect.poll(() => lowEvents().length).toBe(2);
    expect(lowEvents()[1]).toMatchObject({ data: { accountId, credits: 2, creditsLowAt: 3 } });
    expect(new Set(lowEvents().map((e) => e.id)).size).toBe(2);
    // Every event this account raised is in the outbox: two falls, two events (none for the verifications below).
    const stored = (await app.store.listWebhookDeliveries({ accountId, limit: 50 })).items.filter((d) => d.type === 'account.credits_low');
    expect(stored).toHaveLength(2);
  });

  it('a threshold set above the balance announces at once; off stops it', async () => {
    const { accountId } = await app.account(2);
    await app.webhooks.add('test', accountId, { url: `${receiver.url}/now`, events: ['account.credits_low'] });
    dataOf(await app.gql('support', SET, { id: accountId, at: 10 }));
    await expect.poll(() => lowEvents().filter((e) => e.data.accountId === accountId).length).toBe(1);
    const off = dataOf(await app.gql('admin', SET, { id: accountId, at: null })).setCreditsLowAt;
    expect(off.creditsLowAt).toBeNull();
    expect(await app.store.creditsLowAt(accountId)).toBeNull();
  });
});
