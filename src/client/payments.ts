// The payment request routes (docs/payments.md) for the SDK, and the read of
// a verification kept for re-checks (GET /api/v1/verifications/{id}). Every call can
// be sent again safely: a create with the same reference and body answers
// the first request, reads change nothing, and cancelling twice is harmless.
// So connection failures are left to the caller to retry as they see fit.
import { envelope, errorResult, SlipgateError } from './client.js';
import { ERROR_CODES, type PaymentRequestResult, type VerificationResult, type VerificationState } from './types.js';

export interface NewPaymentRequest {
  /** Baht: 250, 250.5 or "250.00". */
  amount: number | string;
  /** Your order id: the same one with the same body answers the first request; with another body, a ReferenceConflict (1026). */
  reference: string;
  /** 1–1440, default 30. */
  expiresInMinutes?: number;
  /** A registered PromptPay receiver (`rcv_…`); optional when the account has exactly one. */
  receiver?: string;
  /** Where the checkout page sends the customer once paid (https; http only for a loopback host): check its signature with verifyCheckoutReturn. */
  successUrl?: string;
}

export interface PaymentRequestCalls {
  createPaymentRequest(input: NewPaymentRequest, options?: { signal?: AbortSignal }): Promise<PaymentRequestResult>;
  getPaymentRequest(id: string, options?: { signal?: AbortSignal }): Promise<PaymentRequestResult>;
  findPaymentRequest(reference: string, options?: { signal?: AbortSignal }): Promise<PaymentRequestResult>;
  cancelPaymentRequest(id: string, options?: { signal?: AbortSignal }): Promise<PaymentRequestResult>;
  /** The QR picture to show the customer: PNG bytes, or SVG text. */
  paymentRequestQr(id: string, format: 'png', options?: { signal?: AbortSignal }): Promise<Uint8Array>;
  paymentRequestQr(id: string, format: 'svg', options?: { signal?: AbortSignal }): Promise<string>;
  /** What became of a slip answered `pending`: GET /api/v1/verifications/{id}. */
  getVerification(id: string, options?: { signal?: AbortSignal }): Promise<VerificationResult>;
}

const PATH = '/api/v1/payment-requests';

export function paymentRequestCalls(c: { base: string; apiKey: string; timeoutMs: number }): PaymentRequestCalls {
  async function send(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined, route = PATH): Promise<Response> {
    const timeout = AbortSignal.timeout(c.timeoutMs);
    try {
      return await fetch(c.base + route + path, {
        method,
        headers: { accept: 'application/json', 'x-api-key': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw new SlipgateError('aborted', 'request aborted by the caller', 1, { cause: err });
      if (timeout.aborted) throw new SlipgateError('timeout', `no answer from slipgate within ${c.timeoutMs} ms`, 1, { cause: err });
      throw new SlipgateError('network', 'could not reach slipgate', 1, { cause: err });
    }
  }
  async function call(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined): Promise<PaymentRequestResult> {
    const res = await send(method, path, body, signal);
    const answer = await envelope(res, 1);
    if (answer.status === 'error' && answer.code === ERROR_CODES.REFERENCE_CONFLICT && res.status === 409) {
      return { status: 'error', kind: 'reference_conflict', httpStatus: 409, code: ERROR_CODES.REFERENCE_CONFLICT, message: typeof answer.message === 'string' ? answer.message : '' };
    }
    if (answer.status === 'error') return errorResult(res, answer);
    return { status: 'success', httpStatus: res.status, created: res.status === 201, data: answer.data as never };
  }
  const id = (value: string) => `/${encodeURIComponent(value)}`;
  return {
    createPaymentRequest: (input, o) => call('POST', '', input, o?.signal),
    getPaymentRequest: (value, o) => call('GET', id(value), undefined, o?.signal),
    findPaymentRequest: (reference, o) => call('GET', `?reference=${encodeURIComponent(reference)}`, undefined, o?.signal),
    cancelPaymentRequest: (value, o) => call('POST', `${id(value)}/cancel`, undefined, o?.signal),
    paymentRequestQr: (async (value: string, format: 'png' | 'svg', o?: { signal?: AbortSignal }) => {
      const res = await send('GET', `${id(value)}/qr.${format}`, undefined, o?.signal);
      if (!res.ok) throw new SlipgateError('bad_response', `slipgate answered HTTP ${res.status} for the QR of ${value}`, 1);
      return format === 'png' ? new Uint8Array(await res.arrayBuffer()) : res.text();
    }) as PaymentRequestCalls['paymentRequestQr'],
    async getVerification(value, o) {
      const res = await send('GET', id(value), undefined, o?.signal, '/api/v1/verifications');
      if (!res.ok) return errorResult(res, await envelope(res, 1));
      const state = (await res.json().catch(() => null)) as VerificationState | null;
      if (!state || typeof state !== 'object') throw new SlipgateError('bad_response', `slipgate answered HTTP ${res.status} without a JSON body`, 1);
      return { httpStatus: 200, ...state };
    },
  };
}
