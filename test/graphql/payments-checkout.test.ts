// Staff make and cancel payment requests through GraphQL (the dashboard's
// account page) and read each one's checkout link; a viewer may not make or
// cancel; bad input is a BAD_USER_INPUT that makes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shop } from '../payments/helpers.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const CREATE = `mutation ($accountId: ID!, $amount: String!, $reference: String!, $successUrl: String) {
  createPaymentRequest(accountId: $accountId, amount: $amount, reference: $reference, successUrl: $successUrl) { id reference amount status checkoutUrl successUrl }
}`;
const CANCEL = `mutation ($id: ID!) { cancelPaymentRequest(id: $id) { id status checkoutUrl } }`;

describe('GraphQL admin API: payment requests made by staff', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp({ env: { PUBLIC_URL: 'https://pay.example.com', SECRETS_KEY: 'd'.repeat(64) } });
  });
  afterAll(() => app?.stop());

  it('support staff make a request with its checkout link, and cancel it; a viewer may do neither', async () => {
    const merchant = await shop(app, 1);
    const made = dataOf(await app.gql('support', CREATE, { accountId: merchant.accountId, amount: '75.50', reference: 'phone-1', successUrl: 'https://shop.example/ok' })).createPaymentRequest;
    expect(made).toMatchObject({ reference: 'phone-1', amount: 75.5, status: 'PENDING', successUrl: 'https://shop.example/ok' });
    expect(made.checkoutUrl).toMatch(new RegExp(`^https://pay\\.example\\.com/checkout/${made.id}/[A-Za-z0-9_-]{22}$`));
    expect((await app.store.getPaymentRequest(made.id))?.accountId).toBe(merchant.accountId);
    expect(errorCodes(await app.gql('viewer', CANCEL, { id: made.id }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await app.gql('viewer', CREATE, { accountId: merchant.accountId, amount: '1', reference: 'phone-2' }))).toEqual(['FORBIDDEN']);
    const cancelled = dataOf(await app.gql('support', CANCEL, { id: made.id })).cancelPaymentRequest;
    expect(cancelled).toMatchObject({ id: made.id, status: 'CANCELLED', checkoutUrl: made.checkoutUrl });
  });

  it('refuses bad input and unknown accounts, making nothing', async () => {
    const merchant = await shop(app, 1);
    expect(errorCodes(await app.gql('support', CREATE, { accountId: merchant.accountId, amount: '-1', reference: 'bad' }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('support', CREATE, { accountId: merchant.accountId, amount: '1', reference: 'bad', successUrl: 'http://shop.example/' }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('support', CREATE, { accountId: 'acc_missing', amount: '1', reference: 'bad' }))).toEqual(['NOT_FOUND']);
    expect(await app.store.findPaymentRequest(merchant.accountId, 'bad')).toBeNull();
  });
});
