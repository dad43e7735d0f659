// The test vectors every SDK reads (sdk/vectors/, the TypeScript one in
// test/client/vectors.test.ts, sdk/php, sdk/python, sdk/go), made with the
// server's own code: webhook bodies serialised as the outbox writes them and
// signed as the delivery worker signs them, checkout return URLs signed as
// the checkout page signs them, and error answers as the verify route and
// the payment routes give them. Fixed secrets and times, so the output is
// the same on every run: `npx tsx scripts/sdk-vectors.ts` rewrites the
// files, and a test fails while the committed ones are stale.
import { writeFileSync } from 'node:fs';
import { ACCOUNT_ERRORS, REFERENCE_CONFLICT, UPSTREAM_MESSAGES } from '../src/domain/errors.js';
import { checkoutLinks, checkoutSignature } from '../src/domain/payments/checkout-link.js';
import type { VerifyOutcome } from '../src/domain/verify/types.js';
import { outboxRecords, type WebhookEvent } from '../src/domain/webhooks/events.js';
import { signatureHeader } from '../src/domain/webhooks/signature.js';
import { verifyAnswer } from '../src/http/verify-answer.js';

export const VECTORS_DIR = new URL('../sdk/vectors/', import.meta.url);

const SIGNED_AT = new Date('2026-11-25T07:05:00.000Z');
const T = Math.floor(SIGNED_AT.getTime() / 1000);
const SECRET = 'whsec_vectors_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const NEW_SECRET = 'whsec_vectors_rotated_aabbccddeeff00112233445566778899';
const TOLERANCE = 300;

/** A body exactly as the outbox stores it (and every attempt sends it). */
function bodyOf(event: WebhookEvent): string {
  return outboxRecords(event, 'acc_vectors', ['whe_vectors'])[0]!.body;
}

const succeeded = bodyOf({
  id: 'evt_01a2000000000000000000000000v001',
  type: 'verification.succeeded',
  createdAt: SIGNED_AT,
  data: {
    verificationId: 'req_01a2000000000000000000000000v001',
    requestId: '01a20000-0000-7000-8000-000000000001',
    transactionId: 'SBX0000025050SvectorsA1',
    amount: 250.5,
    sendingBank: '004',
    receivingBank: '014',
    source: 'qrcode',
    verifiedAt: '2026-11-25T14:05:00.000+07:00',
  },
} as WebhookEvent);

// A shop's reference in Thai: the signature covers the UTF-8 bytes, not the characters.
const paid = bodyOf({
  id: 'evt_01a2000000000000000000000000v002',
  type: 'payment_request.paid',
  createdAt: SIGNED_AT,
  data: {
    id: 'pr_01a2000000000000000000000000v002',
    reference: 'ออเดอร์-123',
    amount: 120,
    status: 'paid',
    receiver: 'rcv_01a2000000000000000000000000v002',
    createdAt: '2026-11-25T13:55:00.000+07:00',
    expiresAt: '2026-11-25T14:25:00.000+07:00',
    paidAt: '2026-11-25T14:05:00.000+07:00',
    paidBy: { verificationId: 'req_01a2000000000000000000000000v003', transactionId: 'SBX0000012000SvectorsB2', sendingBank: '004', amount: 120, transferredAt: '2026-11-25T14:04:00+07:00' },
  },
} as WebhookEvent);

const header = signatureHeader(SECRET, succeeded, SIGNED_AT);
const paidHeader = signatureHeader(SECRET, paid, SIGNED_AT);
const v1Of = (h: string) => h.split(',v1=')[1]!;
// During a rotation the sender signs with both secrets: one header, two v1 values.
const rotated = `t=${T},v1=${v1Of(signatureHeader(SECRET, succeeded, SIGNED_AT))},v1=${v1Of(signatureHeader(NEW_SECRET, succeeded, SIGNED_AT))}`;

type Expect = { ok: true; timestamp: number } | { ok: false; reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' };
const ok: Expect = { ok: true, timestamp: T };
const webhookCase = (name: string, body: string, signature: string, secret: string, now: number, expect: Expect) => ({ name, secret, headers: { 'slipgate-signature': signature }, body, now, toleranceSeconds: TOLERANCE, expect });

function webhookVectors() {
  return {
    about: 'Webhook deliveries: `body` is the raw body (UTF-8), `headers` what was sent with it, `now` the receiver clock (Unix seconds). Verify with `secret` and `toleranceSeconds`; `expect` is the answer.',
    cases: [
      webhookCase('valid', succeeded, header, SECRET, T, ok),
      webhookCase('valid, Thai text in the body', paid, paidHeader, SECRET, T, ok),
      webhookCase('valid, at the edge of the tolerance', succeeded, header, SECRET, T + TOLERANCE, ok),
      webhookCase('tampered body', succeeded.replace('250.5', '2500.5'), header, SECRET, T, { ok: false, reason: 'no_matching_signature' }),
      webhookCase('re-serialised body', JSON.stringify(JSON.parse(succeeded), null, 2), header, SECRET, T, { ok: false, reason: 'no_matching_signature' }),
      webhookCase('tampered timestamp', succeeded, header.replace(`t=${T}`, `t=${T + 1}`), SECRET, T, { ok: false, reason: 'no_matching_signature' }),
      webhookCase('wrong secret', succeeded, header, 'whsec_vectors_not_the_endpoints_secret_000000', T, { ok: false, reason: 'no_matching_signature' }),
      webhookCase('stale timestamp', succeeded, header, SECRET, T + TOLERANCE + 1, { ok: false, reason: 'timestamp_outside_tolerance' }),
      webhookCase('timestamp from the future', succeeded, header, SECRET, T - TOLERANCE - 1, { ok: false, reason: 'timestamp_outside_tolerance' }),
      webhookCase('rotation, the old secret', succeeded, rotated, SECRET, T, ok),
      webhookCase('rotation, the new secret', succeeded, rotated, NEW_SECRET, T, ok),
      webhookCase('rotation, neither secret', succeeded, rotated, 'whsec_vectors_not_the_endpoints_secret_000000', T, { ok: false, reason: 'no_matching_signature' }),
      webhookCase('upper-case hex', succeeded, header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='), SECRET, T, ok),
      webhookCase('no header', succeeded, '', SECRET, T, { ok: false, reason: 'malformed_header' }),
      webhookCase('no v1', succeeded, `t=${T}`, SECRET, T, { ok: false, reason: 'malformed_header' }),
      webhookCase('no timestamp', succeeded, `v1=${v1Of(header)}`, SECRET, T, { ok: false, reason: 'malformed_header' }),
      webhookCase('v1 not hex', succeeded, `t=${T},v1=${'z'.repeat(64)}`, SECRET, T, { ok: false, reason: 'malformed_header' }),
      webhookCase('v1 too short', succeeded, `t=${T},v1=${v1Of(header).slice(2)}`, SECRET, T, { ok: false, reason: 'malformed_header' }),
      webhookCase('another scheme only', succeeded, `t=${T},v0=${v1Of(header)}`, SECRET, T, { ok: false, reason: 'malformed_header' }),
    ],
  };
}

function checkoutReturnVectors() {
  const links = checkoutLinks({ secretsKey: Buffer.alloc(32, 7) });
  const secret = links.accountSecret('acc_vectors')!;
  const id = 'pr_01a2000000000000000000000000v004';
  const signed = `https://shop.example/thanks?order=200&paymentRequest=${id}&status=paid&signature=${checkoutSignature(secret, id, 'paid')}`;
  const paidBack = { ok: true, paymentRequest: id, status: 'paid' };
  const checkoutCase = (name: string, url: string, key: string, expect: object) => ({ name, secret: key, url, expect });
  return {
    about: "Checkout return URLs (docs/payments.md#checkout-page): check `url` with the account's checkout `secret`; `expect` is the answer.",
    cases: [
      checkoutCase('valid', signed, secret, paidBack),
      checkoutCase('valid, the shop query elsewhere', `https://shop.example/thanks?paymentRequest=${id}&status=paid&signature=${checkoutSignature(secret, id, 'paid')}&order=200`, secret, paidBack),
      checkoutCase('another account secret', signed, links.accountSecret('acc_other')!, { ok: false, reason: 'bad_signature' }),
      checkoutCase('tampered request id', signed.replace(id, 'pr_01a2000000000000000000000000v005'), secret, { ok: false, reason: 'bad_signature' }),
      checkoutCase('tampered signature', signed.replace(/signature=[0-9a-f]/, (s) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0')), secret, { ok: false, reason: 'bad_signature' }),
      checkoutCase('another status', signed.replace('status=paid', 'status=cancelled'), secret, { ok: false, reason: 'malformed' }),
      checkoutCase('request id twice', `${signed}&paymentRequest=${id}`, secret, { ok: false, reason: 'malformed' }),
      checkoutCase('no signature', signed.replace(/&signature=[0-9a-f]+/, ''), secret, { ok: false, reason: 'malformed' }),
      checkoutCase('signature not hex', signed.replace(/signature=[0-9a-f]+/, 'signature=zz'), secret, { ok: false, reason: 'malformed' }),
      checkoutCase('not a URL', 'not a url', secret, { ok: false, reason: 'malformed' }),
    ],
  };
}

interface Meaning {
  kind: 'account' | 'verification' | 'invalid_request' | 'rate_limited' | 'unavailable' | 'server_error' | 'reference_conflict';
  /** Absent: null in the file. */
  code?: number;
  /** Only the 500 of a bank's yes that could not be recorded: look it up by x-request-id before sending it again. */
  mayHaveBeenCharged: boolean;
  /** Sending the same request again cannot charge twice (nor make a duplicate check see its own first attempt). */
  retrySafe: boolean;
  /** Worth sending again as it is, after Retry-After when there is one: the same request may be answered otherwise. */
  retryLater: boolean;
}

const fromRoute = (name: string, outcome: VerifyOutcome, expect: Meaning) => {
  const a = verifyAnswer(outcome);
  return { name, route: 'POST /api/v1/verify', httpStatus: a.status, headers: a.headers, body: JSON.stringify(a.body), expect: { ...expect, code: expect.code ?? null, ...readings(a.headers, a.body.message) } };
};
/** What an SDK reads off the answer besides its meaning: the message, x-credits-remaining and Retry-After (null when absent). */
const readings = (headers: Record<string, string>, message: string) => ({
  message,
  creditsRemaining: headers['x-credits-remaining'] === undefined ? null : Number(headers['x-credits-remaining']),
  retryAfterSeconds: headers['retry-after'] === undefined ? null : Number(headers['retry-after']),
});
const notCharged = { mayHaveBeenCharged: false, retrySafe: true };

function errorVectors() {
  const account = (error: keyof typeof ACCOUNT_ERRORS, credits?: number) =>
    fromRoute(`${ACCOUNT_ERRORS[error].code} ${ACCOUNT_ERRORS[error].message}`, { kind: 'account_error', error, ...(credits === undefined ? {} : { creditsRemaining: credits }) }, { kind: 'account', code: ACCOUNT_ERRORS[error].code, ...notCharged, retryLater: false });
  return {
    about:
      'Error answers as slipgate gives them: `httpStatus`, `headers` and the raw `body`. `expect` says what each means: its kind, its code, whether it may have been charged, whether sending it again is safe, and whether sending it again as it is may be answered otherwise.',
    cases: [
      account('missing_api_key'),
      account('invalid_api_key'),
      account('user_not_found'),
      account('insufficient_fund', 0),
      account('ip_not_allowed'),
      account('receiver_not_registered', 7),
      fromRoute('slip not found (HTTP 200)', { kind: 'failed', reason: 'slip_not_found', message: 'slip not found: transaction not found', creditsRemaining: 9 }, { kind: 'verification', ...notCharged, retryLater: true }),
      fromRoute('bank timed out (HTTP 200)', { kind: 'failed', reason: 'upstream_timeout', message: UPSTREAM_MESSAGES.upstream_timeout, creditsRemaining: 9 }, { kind: 'verification', ...notCharged, retryLater: true }),
      fromRoute('bad body', { kind: 'bad_request', problem: 'invalid', message: 'qrcode must be a string', creditsRemaining: 9 }, { kind: 'invalid_request', ...notCharged, retryLater: false }),
      fromRoute('wrong content type', { kind: 'bad_request', problem: 'unsupported_media_type', message: 'Content-Type must be application/json' }, { kind: 'invalid_request', ...notCharged, retryLater: false }),
      fromRoute('body too large', { kind: 'bad_request', problem: 'too_large', message: 'request body is too large' }, { kind: 'invalid_request', ...notCharged, retryLater: false }),
      fromRoute('too many in flight', { kind: 'busy', message: 'too many verifications in flight; retry shortly', creditsRemaining: 9 }, { kind: 'rate_limited', ...notCharged, retryLater: true }),
      fromRoute('rate limited', { kind: 'throttled', message: 'too many requests; retry later', retryAfterSeconds: 30 }, { kind: 'rate_limited', ...notCharged, retryLater: true }),
      fromRoute('too many slips being re-checked', { kind: 'recheck_limit', message: '', creditsRemaining: 9 }, { kind: 'rate_limited', code: 1027, ...notCharged, retryLater: true }),
      fromRoute('store unreachable', { kind: 'unavailable', message: 'service temporarily unavailable; retry shortly' }, { kind: 'unavailable', ...notCharged, retryLater: true }),
      fromRoute('recorded the charge failed', { kind: 'outcome_unknown' }, { kind: 'server_error', mayHaveBeenCharged: true, retrySafe: false, retryLater: false }),
      {
        name: '1026 reference already used',
        route: 'POST /api/v1/payment-requests',
        httpStatus: 409,
        headers: {},
        body: JSON.stringify({ status: 'error', ...REFERENCE_CONFLICT }),
        expect: { kind: 'reference_conflict', code: REFERENCE_CONFLICT.code, ...notCharged, retryLater: false, ...readings({}, REFERENCE_CONFLICT.message) },
      },
      {
        name: 'payment request not found',
        route: 'GET /api/v1/payment-requests/{id}',
        httpStatus: 404,
        headers: {},
        body: JSON.stringify({ status: 'error', message: 'payment request not found' }),
        expect: { kind: 'invalid_request', code: null, ...notCharged, retryLater: false, ...readings({}, 'payment request not found') },
      },
    ],
  };
}

const write = (name: string, value: unknown) => writeFileSync(new URL(name, VECTORS_DIR), `${JSON.stringify(value, null, 2)}\n`);

export const VECTOR_FILES = { 'webhooks.json': webhookVectors, 'checkout-return.json': checkoutReturnVectors, 'errors.json': errorVectors } as const;

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, make] of Object.entries(VECTOR_FILES)) write(name, make());
  console.log(`wrote ${Object.keys(VECTOR_FILES).join(', ')} into sdk/vectors/`);
}
