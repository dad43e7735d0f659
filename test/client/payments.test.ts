// The SDK's payment request calls against a real running slipgate: create
// (and the same reference again: the same body, then another: 1026), read by id and reference, the QR, pay
// through verify with paymentRequest, cancel, and the key errors.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, ERROR_CODES, type PaymentRequestResult, type PaymentVerdict } from '../../src/client/index.js';
import { decodeSlipImage } from '../../src/slip-image/decode-image.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { shop, slipFor, type Shop } from '../payments/helpers.js';

describe('slipgate/client: payment requests', () => {
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp();
    merchant = await shop(app, 5);
  });
  afterAll(() => app?.stop());

  const data = (r: PaymentRequestResult) => {
    if (r.status !== 'success') throw new Error(`expected success, got ${JSON.stringify(r)}`);
    return r;
  };

  it('creates, finds, shows the QR, pays through verify and cancels', async () => {
    const client = createClient({ url: app.publicUrl, apiKey: merchant.apiKey });
    const made = data(await client.createPaymentRequest({ amount: '120.00', reference: 'sdk-1' }));
    expect(made).toMatchObject({ httpStatus: 201, created: true, data: { reference: 'sdk-1', amount: 120, status: 'pending' } });
    const again = data(await client.createPaymentRequest({ amount: 120, reference: 'sdk-1' }));
    expect(again).toEqual({ ...made, httpStatus: 200, created: false });
    // The reference again for another amount: a reused order number, never the first order's state.
    const reused = await client.createPaymentRequest({ amount: 1, reference: 'sdk-1' });
    expect(reused).toEqual({ status: 'error', kind: 'reference_conflict', httpStatus: 409, code: ERROR_CODES.REFERENCE_CONFLICT, message: 'reference already used' });
    expect(ERROR_CODES.REFERENCE_CONFLICT).toBe(1026);
    expect(data(await client.getPaymentRequest(made.data.id)).data).toEqual(made.data);
    expect(data(await client.findPaymentRequest('sdk-1')).data).toEqual(made.data);
    expect(await decodeSlipImage(await client.paymentRequestQr(made.data.id, 'png'))).toBe(made.data.promptpay);
    expect(await client.paymentRequestQr(made.data.id, 'svg')).toMatch(/^<svg /);

    const paid = await client.verify(slipFor({ amount: 120 }), { paymentRequest: made.data.id });
    expect(paid.status).toBe('success');
    if (paid.status === 'success') {
      expectTypeOf(paid.paymentRequest).toEqualTypeOf<PaymentVerdict | undefined>();
      expect(paid.paymentRequest).toEqual({ id: made.data.id, status: 'paid' });
    }
    expect(data(await client.getPaymentRequest(made.data.id)).data).toMatchObject({ status: 'paid', paidBy: { amount: 120 } });
    // Without paymentRequest the success has no such field.
    const plain = await client.verify(slipFor({ amount: 3 }));
    expect(plain.status === 'success' && 'paymentRequest' in plain).toBe(false);

    const other = data(await client.createPaymentRequest({ amount: 5, reference: 'sdk-2', expiresInMinutes: 10 }));
    expect(data(await client.cancelPaymentRequest(other.data.id)).data.status).toBe('cancelled');
    expect(await client.cancelPaymentRequest(made.data.id)).toMatchObject({ status: 'error', kind: 'invalid_request', httpStatus: 409 });
    expect(await client.getPaymentRequest('pr_unknown')).toMatchObject({ status: 'error', httpStatus: 404, message: 'payment request not found' });
    expect(await client.createPaymentRequest({ amount: 0, reference: 'x' })).toMatchObject({ status: 'error', kind: 'invalid_request', httpStatus: 400 });
  });

  it('answers key errors with their codes', async () => {
    const client = createClient({ url: app.publicUrl, apiKey: 'slip_not_a_key' });
    expect(await client.findPaymentRequest('sdk-1')).toEqual({ status: 'error', kind: 'account', httpStatus: 401, code: ERROR_CODES.INVALID_API_KEY, message: 'invalid api key' });
  });
});
