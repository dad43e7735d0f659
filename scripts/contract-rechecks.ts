// The re-check part of openapi.json (docs/payments.md#re-checks):
// the verify body's `recheck`, its 202 pending answer and 1027 refusal, a
// payment request shown `verifying`, and GET /api/v1/verifications/{id}.
// scripts/contract.ts merges it in after the payment part; `npm run contract` writes it.
import { RECHECK_LIMIT } from '../src/domain/errors.js';
import { PAYMENT_STATUSES } from '../src/domain/payments/types.js';
import { BANGKOK_TIME, answer, keyErrors, ref, security } from './contract-payments.js';

type Json = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, { responses: Record<string, Json> }>>; components: { schemas: Record<string, { properties: Json }> } };

const ID = { type: 'string', description: 'The verification id the 202 gave.' };

const SLIP = {
  verificationId: ID,
  sendingBank: { type: 'string', pattern: '^\\d{3}$' },
  transRef: { type: 'string', description: 'The transaction reference, masked but for its last 4 characters.' },
  since: { ...BANGKOK_TIME, description: 'When it was sent (Bangkok time).' },
  deadline: { ...BANGKOK_TIME, description: 'When it ends unconfirmed unless the bank confirms it first (RECHECK_MINUTES after `since`).' },
};

function components(): Json {
  return {
    VerifyPending: {
      type: 'object',
      description:
        'HTTP 202, only with `paymentRequest` or `"recheck": true`: the bank does not know the slip yet (or did not answer). Nothing charged; the slip is kept and asked again for RECHECK_MINUTES. Read the outcome with GET /api/v1/verifications/{verificationId} (or the payment request).',
      required: ['status', 'verificationId', 'message'],
      additionalProperties: false,
      properties: {
        status: { const: 'pending' },
        verificationId: ID,
        paymentRequest: { type: 'object', required: ['id', 'status'], additionalProperties: false, properties: { id: { type: 'string' }, status: { const: 'verifying' } } },
        message: { type: 'string' },
      },
    },
    Error1027: {
      type: 'object',
      description: 'HTTP 429: the account has RECHECK_MAX_PER_ACCOUNT slips being re-checked already. Nothing kept, nothing charged.',
      required: ['status', 'code', 'message'],
      additionalProperties: false,
      properties: { status: { const: 'error' }, code: { const: RECHECK_LIMIT.code }, message: { const: RECHECK_LIMIT.message } },
    },
    SlipBeingChecked: { type: 'object', required: Object.keys(SLIP), additionalProperties: false, properties: SLIP },
    VerificationRead: {
      type: 'object',
      description:
        'A slip kept for re-checks. `success`: confirmed and charged, with what a success answer carries and `recordId` (the charged verification record); `unconfirmed`: not confirmed before the deadline (or no credit then), nothing charged; `superseded`: another slip paid its payment request first (or it was cancelled); `refused`: the receiver policy refused it.',
      required: ['status', 'verificationId'],
      additionalProperties: false,
      properties: {
        status: { enum: ['pending', 'success', 'unconfirmed', 'superseded', 'refused'] },
        ...SLIP,
        paymentRequestId: { type: 'string' },
        recordId: { type: 'string' },
        data: ref('SlipData'),
        checks: ref('CheckResults'),
        paymentRequest: ref('PaymentVerdict'),
        reason: { enum: ['not_confirmed', 'no_credit'] },
        finishedAt: BANGKOK_TIME,
      },
    },
  };
}

/** Adds the re-check schemas, answers and route to `doc` (after the payment part). */
export function addRechecks(doc: Doc): void {
  Object.assign(doc.components.schemas, components());
  doc.components.schemas.VerifyRequest!.properties.recheck = {
    type: 'boolean',
    description: 'Opt-in: a slip the bank does not know yet is kept and asked again (202 pending) instead of answered as not found. `false` or absent: the contract answer.',
  };
  const shown = doc.components.schemas.PaymentRequest!.properties;
  shown.status = { enum: [...PAYMENT_STATUSES, 'verifying'], description: '`verifying` (shown, not stored: stored it is `pending`) while a slip sent for it is being re-checked.' };
  shown.verifying = { ...ref('SlipBeingChecked'), description: 'Reads only: the newest slip being re-checked for it, while one is.' };
  const verify = doc.paths['/api/v1/verify']!.post!.responses;
  verify['202'] = answer('Only with `paymentRequest` or `"recheck": true`: the bank does not know the slip yet; kept and asked again, nothing charged.', ref('VerifyPending'));
  const tooMany = verify['429'] as { content: { 'application/json': { schema: Json } } };
  tooMany.content['application/json'].schema = { oneOf: [ref('RequestError'), ref('Error1027')] };
  doc.paths['/api/v1/verifications/{id}'] = {
    get: {
      operationId: 'getVerification',
      summary: 'What became of a slip answered 202 pending',
      security,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': answer('Found.', ref('VerificationRead')),
        ...keyErrors,
        '404': answer("No such verification kept for this key's account (another account's is not found either).", ref('RequestError')),
      },
    } as unknown as { responses: Record<string, Json> },
  };
}
