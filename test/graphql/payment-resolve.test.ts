// Staff resolution through GraphQL ("this slip paid that order"): a verified
// slip that paid no request is attached to the request it paid by support
// staff, audited, with one payment_request.paid event marked resolvedBy
// "staff" sent to a real local endpoint, no credit, and the same refusals as
// paying. Staff-made and staff-cancelled requests join the admin events too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, shop, slipFor, type Shop } from '../payments/helpers.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { dataOf, errorCodes, startGraphqlApp, type GqlResponse, type GraphqlTestApp } from './helpers.js';

const RESOLVE = `mutation ($pr: ID!, $v: ID!, $note: String, $force: Boolean) {
  resolvePaymentRequest(paymentRequestId: $pr, verificationId: $v, note: $note, force: $force) {
    changed
    paymentRequest { id status paidAt paidBy { verificationId amount } }
  }
}`;
const RECORDS = `query ($accountId: ID!) { verifyTransactions(filter: { accountId: $accountId }) { nodes { id transactionId payment { requestId status reason } } } }`;
const EVENTS = `query ($id: ID!) { adminEvents(targetId: $id) { nodes { action actor reason details by { kind name } } } }`;
const CREATE = `mutation ($accountId: ID!, $reference: String!) { createPaymentRequest(accountId: $accountId, amount: "60", reference: $reference) { id status } }`;
const CANCEL = `mutation ($id: ID!) { cancelPaymentRequest(id: $id) { id status } }`;

const reasonOf = (res: GqlResponse) => (res.body?.errors ?? []).map((e: { extensions?: { code?: string; reason?: string } }) => `${e.extensions?.code}:${e.extensions?.reason ?? ''}`);

describe('GraphQL admin API: staff resolution of payment requests', () => {
  let app: GraphqlTestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    app = await startGraphqlApp({ env: { WEBHOOK_POLL_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  /** A verified, charged slip sent with `paymentRequest` (or none), and its record's id. */
  async function verified(merchant: Shop, qrcode: string, paymentRequest?: string): Promise<string> {
    const res = await app.post({ qrcode, ...(paymentRequest ? { paymentRequest } : {}) }, { 'x-api-key': merchant.apiKey });
    expect(res.body.status).toBe('success');
    const records = dataOf(await app.gql('viewer', RECORDS, { accountId: merchant.accountId })).verifyTransactions.nodes;
    return records.find((r: { transactionId: string }) => r.transactionId === res.body.data.transactionId).id;
  }

  it('support attaches a slip of another amount to its order: paid, audited, one staff event, no credit; the same pair again changes nothing', async () => {
    const merchant = await shop(app, 5);
    await app.webhooks.add('test', merchant.accountId, { url: `${receiver.url}/hooks`, events: ['payment_request.paid'] });
    const order = (await create(app, merchant, { amount: 80, reference: 'r-1' })).body.data;
    const slip = await verified(merchant, slipFor({ amount: 79 }), order.id);
    const credits = (await app.store.getAccount(merchant.accountId))!.credits;

    const vars = { pr: order.id, v: slip, note: 'customer paid 79, we accept' };
    expect(errorCodes(await app.gql('viewer', RESOLVE, vars))).toEqual(['FORBIDDEN']);
    const first = dataOf(await app.gql('support', RESOLVE, vars)).resolvePaymentRequest;
    expect(first).toEqual({ changed: true, paymentRequest: { id: order.id, status: 'PAID', paidAt: expect.any(String), paidBy: { verificationId: slip, amount: 79 } } });
    const again = dataOf(await app.gql('admin', RESOLVE, vars)).resolvePaymentRequest;
    expect(again).toEqual({ ...first, changed: false });
    expect((await app.store.getAccount(merchant.accountId))!.credits).toBe(credits);

    const records = dataOf(await app.gql('viewer', RECORDS, { accountId: merchant.accountId })).verifyTransactions.nodes;
    expect(records.find((r: { id: string }) => r.id === slip).payment).toEqual({ requestId: order.id, status: 'PAID', reason: null });
    const events = dataOf(await app.gql('viewer', EVENTS, { id: merchant.accountId })).adminEvents.nodes.filter((e: { action: string }) => e.action === 'resolvePaymentRequest');
    expect(events).toEqual([
      {
        action: 'resolvePaymentRequest',
        actor: expect.stringMatching(/^admin:.*support-token$/),
        reason: 'customer paid 79, we accept',
        by: { kind: 'ADMIN_TOKEN', name: 'support-token' },
        details: expect.objectContaining({ paymentRequestId: order.id, verificationId: slip, requestAmount: 80, slipAmount: 79, amountMismatch: true, receiverMismatch: false, statusBefore: 'pending' }),
      },
    ]);

    await expect.poll(() => receiver.received.length).toBe(1);
    const event = JSON.parse(receiver.received[0]!.body);
    expect(event).toMatchObject({ type: 'payment_request.paid', data: { id: order.id, status: 'paid', resolvedBy: 'staff', paidBy: { verificationId: slip, amount: 79 } } });
  });

  it('refuses what paying refuses, and a slip paid to someone else unless forced', async () => {
    const merchant = await shop(app, 10, '0866666666');
    const other = await shop(app, 2, '0877777777');
    const paid = (await create(app, merchant, { amount: 50, reference: 'x-paid' })).body.data;
    const open = (await create(app, merchant, { amount: 50, reference: 'x-open' })).body.data;
    const cancelled = (await create(app, merchant, { amount: 50, reference: 'x-cancelled' })).body.data;
    const payer = await verified(merchant, slipFor({ amount: 50, promptPay: '0866666666' }), paid.id);
    const loose = await verified(merchant, slipFor({ amount: 50, promptPay: '0866666666' }));
    const elsewhere = await verified(merchant, slipFor({ amount: 50, promptPay: '0899999999' }));
    const foreign = await verified(other, slipFor({ amount: 50, promptPay: '0877777777' }));
    dataOf(await app.gql('support', CANCEL, { id: cancelled.id }));

    expect(reasonOf(await app.gql('support', RESOLVE, { pr: paid.id, v: loose }))).toEqual(['CONFLICT:already_paid']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: cancelled.id, v: loose }))).toEqual(['CONFLICT:cancelled']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: open.id, v: payer }))).toEqual(['CONFLICT:slip_already_used']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: open.id, v: foreign }))).toEqual(['CONFLICT:other_account']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: open.id, v: 'req_nope' }))).toEqual(['NOT_FOUND:']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: 'pr_nope', v: loose }))).toEqual(['NOT_FOUND:']);
    expect(reasonOf(await app.gql('support', RESOLVE, { pr: open.id, v: elsewhere }))).toEqual(['CONFLICT:wrong_receiver']);
    expect((await app.store.getPaymentRequest(open.id))?.status).toBe('pending');

    const forced = dataOf(await app.gql('support', RESOLVE, { pr: open.id, v: elsewhere, force: true, note: 'shop owner confirmed the transfer' })).resolvePaymentRequest;
    expect(forced).toMatchObject({ changed: true, paymentRequest: { status: 'PAID', paidBy: { verificationId: elsewhere } } });
    const events = dataOf(await app.gql('viewer', EVENTS, { id: merchant.accountId })).adminEvents.nodes;
    expect(events.filter((e: { action: string }) => e.action === 'resolvePaymentRequest').map((e: { details: unknown }) => e.details)).toEqual([
      expect.objectContaining({ paymentRequestId: open.id, verificationId: elsewhere, amountMismatch: false, receiverMismatch: true }),
    ]);
  });

  it('requests made and cancelled by staff leave admin events; cancelling again leaves none', async () => {
    const merchant = await shop(app, 1, '0888888888');
    const made = dataOf(await app.gql('support', CREATE, { accountId: merchant.accountId, reference: 'phone-9' })).createPaymentRequest;
    dataOf(await app.gql('support', CREATE, { accountId: merchant.accountId, reference: 'phone-9' }));
    dataOf(await app.gql('support', CANCEL, { id: made.id }));
    dataOf(await app.gql('admin', CANCEL, { id: made.id }));
    const events = dataOf(await app.gql('viewer', EVENTS, { id: merchant.accountId })).adminEvents.nodes.filter((e: { action: string }) => e.action.endsWith('PaymentRequest'));
    expect(events.map((e: { action: string; details: unknown; by: unknown }) => [e.action, e.details, e.by])).toEqual([
      ['cancelPaymentRequest', { paymentRequestId: made.id, reference: 'phone-9', amount: 60, status: 'cancelled' }, { kind: 'ADMIN_TOKEN', name: 'support-token' }],
      ['createPaymentRequest', { paymentRequestId: made.id, reference: 'phone-9', amount: 60, status: 'pending' }, { kind: 'ADMIN_TOKEN', name: 'support-token' }],
    ]);
  });
});
