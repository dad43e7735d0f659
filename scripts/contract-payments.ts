// The payment request part of openapi.json (docs/payments.md): the create
// body from the domain's own zod schema, the request as every answer shows
// it, the verdict a verification adds, and the routes. scripts/contract.ts
// merges it in; `npm run contract` writes it.
import { z } from 'zod';
import { REFERENCE_CONFLICT } from '../src/domain/errors.js';
import { paymentRequestBody } from '../src/domain/payments/input.js';
import { PAYMENT_REFUSALS, PAYMENT_STATUSES } from '../src/domain/payments/types.js';

type Json = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const BANGKOK_TIME = { type: 'string', format: 'date-time', description: 'ISO 8601 in Bangkok time (+07:00).' };
const BAHT = { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 };
const jsonOf = (schema: Json) => ({ 'application/json': { schema } });
const header = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
export const answer = (description: string, schema: Json) => ({ description, headers: header, content: jsonOf(schema) });
const success = { type: 'object', required: ['status', 'data'], additionalProperties: false, properties: { status: { const: 'success' }, data: ref('PaymentRequest') } };
export const keyErrors = {
  '401': answer('1020 (no `x-api-key`) or 1021 (unknown or revoked key).', { oneOf: [ref('Error1020'), ref('Error1021')] }),
  '403': answer("1024: the client's address is not in the key's allowed ranges.", ref('Error1024')),
};
const notFound = { '404': answer("No such request for this key's account (another account's request is not found either).", ref('RequestError')) };
const badRequest = (what: string) => ({ '400': answer(`1022 (the key's account was deleted) or ${what}.`, { oneOf: [ref('Error1022'), ref('RequestError')] }) });
const idParam = [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^pr_[0-9a-f]{32}$' } }];
export const security = [{ ApiKey: [] }];

export function paymentComponents(): Json {
  const { $schema: _draft, ...create } = z.toJSONSchema(paymentRequestBody, { target: 'draft-2020-12' }) as Json;
  return {
    PaymentRequestCreate: create,
    Error1026: {
      type: 'object',
      description:
        'The `reference` was used before for another amount, receiver or expiry (HTTP 409): a reused order number. Nothing was made or changed; the earlier request stays as it was (read it with GET ?reference=).',
      required: ['status', 'code', 'message'],
      additionalProperties: false,
      properties: { status: { const: 'error' }, code: { const: REFERENCE_CONFLICT.code }, message: { const: REFERENCE_CONFLICT.message } },
    },
    PaymentRequest: {
      type: 'object',
      required: ['id', 'reference', 'amount', 'status', 'receiver', 'promptpay', 'createdAt', 'expiresAt', 'paidAt', 'paidBy', 'checkoutUrl', 'successUrl'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: '^pr_[0-9a-f]{32}$' },
        reference: { type: 'string' },
        amount: { ...BAHT, description: 'What the customer must pay, in baht (the QR carries it).' },
        requestedAmount: { ...BAHT, description: 'Only under the unique-amount setting: what was asked, before the added satang.' },
        status: { enum: [...PAYMENT_STATUSES] },
        receiver: { type: 'string', description: 'The registered receiver the QR pays.' },
        promptpay: { type: 'string', description: 'The EMVCo payload of the dynamic PromptPay QR (tag 54 amount, CRC-16).' },
        createdAt: BANGKOK_TIME,
        expiresAt: BANGKOK_TIME,
        paidAt: { anyOf: [BANGKOK_TIME, { type: 'null' }] },
        paidBy: {
          anyOf: [
            {
              type: 'object',
              description: 'The slip that paid it.',
              required: ['verificationId', 'transactionId', 'sendingBank', 'amount', 'transferredAt'],
              additionalProperties: false,
              properties: { verificationId: { type: 'string' }, transactionId: { type: 'string' }, sendingBank: { type: 'string' }, amount: BAHT, transferredAt: BANGKOK_TIME },
            },
            { type: 'null' },
          ],
        },
        checkoutUrl: {
          anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }],
          description: "The request's checkout page, PUBLIC_URL/checkout/<id>/<token> (docs/payments.md#checkout-page): open it without a key. Null when the server has no PUBLIC_URL or SECRETS_KEY.",
        },
        successUrl: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }], description: 'Where the checkout page sends the customer once paid, as given on create.' },
      },
    },
    PaymentVerdict: {
      type: 'object',
      description: 'Only with `paymentRequest` in the request: whether this slip paid it, or why not. The verification itself succeeded and was charged either way.',
      required: ['id', 'status'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        status: { enum: [...PAYMENT_STATUSES], description: "The request's status after this slip." },
        reason: { enum: [...PAYMENT_REFUSALS], description: 'Why this slip did not pay it; absent when it did.' },
        otherRequestId: { type: 'string', description: '`slip_already_used`: the request this slip paid.' },
      },
    },
  };
}

export function paymentPaths(): Json {
  const base = '/api/v1/payment-requests';
  return {
    [base]: {
      post: {
        operationId: 'createPaymentRequest',
        summary: 'Create a payment request (a dynamic PromptPay QR for one order); costs no credit',
        security,
        requestBody: { required: true, content: jsonOf(ref('PaymentRequestCreate')) },
        responses: {
          '201': answer('Created.', success),
          '200': answer(
            'The same `reference` was used before with the same amount, receiver and expiry (an omitted one as the create would resolve it): its first request, unchanged.',
            success,
          ),
          '409': answer('1026: the same `reference` was used before with another amount, receiver or expiry.', ref('Error1026')),
          ...badRequest('a bad body (amount, reference, expiresInMinutes, receiver; unknown fields)'),
          ...keyErrors,
          '415': answer('Content-Type is not application/json.', ref('RequestError')),
        },
      },
      get: {
        operationId: 'findPaymentRequest',
        summary: "A payment request by the merchant's reference",
        security,
        parameters: [{ name: 'reference', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': answer('Found.', success), ...badRequest('no `reference`'), ...keyErrors, ...notFound },
      },
    },
    [`${base}/{id}`]: {
      get: { operationId: 'getPaymentRequest', summary: 'A payment request by id', security, parameters: idParam, responses: { '200': answer('Found.', success), ...badRequest('—'), ...keyErrors, ...notFound } },
    },
    [`${base}/{id}/cancel`]: {
      post: {
        operationId: 'cancelPaymentRequest',
        summary: 'Cancel a pending payment request (again: answered as it is)',
        security,
        parameters: idParam,
        responses: {
          '200': answer('Cancelled.', success),
          ...badRequest('—'),
          ...keyErrors,
          ...notFound,
          '409': answer('Paid or expired: not cancelled.', ref('RequestError')),
        },
      },
    },
    ...Object.fromEntries(
      (['png', 'svg'] as const).map((kind) => [
        `${base}/{id}/qr.${kind}`,
        {
          get: {
            operationId: `paymentRequestQr${kind.toUpperCase()}`,
            summary: `The QR as a ${kind.toUpperCase()} picture`,
            security,
            parameters: idParam,
            responses: {
              '200': { description: 'The picture.', content: { [kind === 'png' ? 'image/png' : 'image/svg+xml']: { schema: { type: 'string', contentMediaType: kind === 'png' ? 'image/png' : 'image/svg+xml' } } } },
              ...badRequest('—'),
              ...keyErrors,
              ...notFound,
            },
          },
        },
      ]),
    ),
  };
}
