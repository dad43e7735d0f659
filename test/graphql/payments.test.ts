// Payment requests through GraphQL: a viewer reads an account's requests by
// status and time with the slip that paid each; support staff turn unique
// amounts on (an admin event); a viewer may not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, create, PATH, shop, slipFor } from '../payments/helpers.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const LIST = `query ($id: ID!, $status: PaymentRequestStatus, $from: DateTime, $first: Int) {
  account(id: $id) {
    uniquePaymentAmounts
    paymentRequests(status: $status, from: $from, first: $first) {
      nodes { id reference amount requestedAmount status receiverId paidAt paidBy { transactionId sendingBank amount transferredAt verificationId } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;
const VERDICTS = `query ($accountId: ID!) { verifyTransactions(filter: { accountId: $accountId }) { nodes { transactionId payment { requestId status reason } } } }`;
const ONE = `query ($id: ID!) { paymentRequest(id: $id) { id status reference closedAt } }`;
const UNIQUE = `mutation ($accountId: ID!, $on: Boolean!) { setUniquePaymentAmounts(accountId: $accountId, on: $on, reason: "two tills") { id uniquePaymentAmounts adminEvents { action details } } }`;

describe('GraphQL admin API: payment requests', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp();
  });
  afterAll(() => app?.stop());

  it('lists an account’s requests by status, newest first, with the slip that paid each', async () => {
    const merchant = await shop(app, 5);
    const first = (await create(app, merchant, { amount: 80, reference: 'g-1' })).body.data;
    const second = (await create(app, merchant, { amount: 90, reference: 'g-2' })).body.data;
    const paid = await app.post({ qrcode: slipFor({ amount: 80 }), paymentRequest: first.id }, { 'x-api-key': merchant.apiKey });
    await call(app, 'POST', `${PATH}/${second.id}/cancel`, merchant.apiKey);

    const all = dataOf(await app.gql('viewer', LIST, { id: merchant.accountId })).account;
    expect(all.uniquePaymentAmounts).toBe(false);
    expect(all.paymentRequests.nodes.map((n: { reference: string }) => n.reference)).toEqual(['g-2', 'g-1']);
    const onlyPaid = dataOf(await app.gql('viewer', LIST, { id: merchant.accountId, status: 'PAID' })).account.paymentRequests.nodes;
    expect(onlyPaid).toEqual([
      {
        id: first.id,
        reference: 'g-1',
        amount: 80,
        requestedAmount: 80,
        status: 'PAID',
        receiverId: merchant.receiverId,
        paidAt: expect.any(String),
        paidBy: { transactionId: paid.body.data.transactionId, sendingBank: paid.body.data.senderBankCode, amount: 80, transferredAt: expect.any(String), verificationId: expect.stringMatching(/^req_/) },
      },
    ]);
    const later = dataOf(await app.gql('viewer', LIST, { id: merchant.accountId, from: new Date(Date.now() + 60_000).toISOString() })).account.paymentRequests.nodes;
    expect(later).toEqual([]);
    expect(dataOf(await app.gql('viewer', ONE, { id: second.id })).paymentRequest).toMatchObject({ id: second.id, status: 'CANCELLED', reference: 'g-2', closedAt: expect.any(String) });
    expect(errorCodes(await app.gql('viewer', ONE, { id: 'pr_nope' }))).toEqual(['NOT_FOUND']);

    // Each verification keeps what its slip did to the request it was sent for; a plain one has none.
    const refused = await app.post({ qrcode: slipFor({ amount: 80 }), paymentRequest: first.id }, { 'x-api-key': merchant.apiKey });
    const plain = await app.post({ qrcode: slipFor({ amount: 80 }) }, { 'x-api-key': merchant.apiKey });
    const verdicts = dataOf(await app.gql('viewer', VERDICTS, { accountId: merchant.accountId })).verifyTransactions.nodes;
    expect(verdicts).toEqual([
      { transactionId: plain.body.data.transactionId, payment: null },
      { transactionId: refused.body.data.transactionId, payment: { requestId: first.id, status: 'PAID', reason: 'ALREADY_PAID' } },
      { transactionId: paid.body.data.transactionId, payment: { requestId: first.id, status: 'PAID', reason: null } },
    ]);
  });

  it('support turns unique amounts on with an admin event; a viewer may not', async () => {
    const merchant = await shop(app, 1, '0855555555');
    expect(errorCodes(await app.gql('viewer', UNIQUE, { accountId: merchant.accountId, on: true }))).toEqual(['FORBIDDEN']);
    expect(await app.store.uniquePaymentAmounts(merchant.accountId)).toBe(false);
    const set = dataOf(await app.gql('support', UNIQUE, { accountId: merchant.accountId, on: true })).setUniquePaymentAmounts;
    expect(set).toMatchObject({ id: merchant.accountId, uniquePaymentAmounts: true });
    expect(set.adminEvents[0]).toEqual({ action: 'setUniquePaymentAmounts', details: { from: false, to: true } });
    const made = (await create(app, merchant, { amount: 50, reference: 'u-1' })).body.data;
    expect(made.requestedAmount).toBe(50);
    expect(made.amount).not.toBe(50);
    expect(errorCodes(await app.gql('support', UNIQUE, { accountId: 'acc_nope', on: true }))).toEqual(['NOT_FOUND']);
  });
});
