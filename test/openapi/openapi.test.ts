// openapi.json against real answers of a running slipgate: every response
// (success, checks, each error code, upstream failures, 4xx, 429, 503) must
// match the schema documented for its HTTP status, and every request we
// send must match (or, for bad checks, fail) the request schema.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { unreadableQrPicture } from '../images/unreadable-qr.js';

const DOC_URL = new URL('../../openapi.json', import.meta.url);
const doc = JSON.parse(readFileSync(DOC_URL, 'utf8')) as {
  openapi: string;
  paths: Record<string, { post: { responses: Record<string, { headers?: Record<string, unknown>; content: Record<string, { schema: unknown }> }> } }>;
  components: { securitySchemes: Record<string, unknown> };
};
const VERIFY = '/api/v1/verify';
const PAYMENT_PATHS = ['', '/{id}', '/{id}/cancel', '/{id}/qr.png', '/{id}/qr.svg'].map((p) => `/api/v1/payment-requests${p}`);
const ID = 'https://slipgate.local/openapi.json';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
// Union types (`["string", "null"]`) are plain 2020-12; amounts are checked to the satang.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, multipleOfPrecision: 6 });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
// The OpenAPI document is the root; its non-schema parts are just known keywords.
ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'paths', 'components']);
ajv.addSchema({ ...doc, $id: ID });

const pointer = (...parts: string[]) => `${ID}#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const component = (name: string) => ajv.compile({ $ref: pointer('components', 'schemas', name) });
const responseSchemas = new Map<number, ValidateFunction>();
function responseValidator(status: number): ValidateFunction {
  let v = responseSchemas.get(status);
  if (!v) {
    const documented = doc.paths[VERIFY]!.post.responses[String(status)];
    if (!documented) throw new Error(`HTTP ${status} is not documented`);
    v = ajv.compile({ $ref: pointer('paths', VERIFY, 'post', 'responses', String(status), 'content', 'application/json', 'schema') });
    responseSchemas.set(status, v);
  }
  return v;
}
const requestSchema = component('VerifyRequest');

function expectValid(v: ValidateFunction, value: unknown, label: string): void {
  const ok = v(value);
  expect(ok, `${label}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

describe('openapi.json', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ env: { MAX_INFLIGHT_PER_ACCOUNT: '1', UPSTREAM_TIMEOUT_MS: '400' } });
  });
  afterAll(() => app?.stop());

  /** Sends a request, checks it against the request schema and the answer against the documented response. */
  async function call(body: unknown, headers: Record<string, string>, component?: string) {
    const res = await app.post(body, headers);
    expectValid(responseValidator(res.status), res.body, `HTTP ${res.status}`);
    const credits = res.headers.get('x-credits-remaining');
    if (credits !== null) {
      expect(credits).toMatch(/^[0-9]+$/);
      expect(Object.keys(doc.paths[VERIFY]!.post.responses[String(res.status)]!.headers ?? {}), `HTTP ${res.status} headers`).toContain('x-credits-remaining');
    }
    if (component) expectValid(ajvComponent(component), res.body, component);
    return res;
  }
  const cache = new Map<string, ValidateFunction>();
  const ajvComponent = (name: string) => cache.get(name) ?? (cache.set(name, component(name)), cache.get(name)!);

  it('is OpenAPI 3.1 with the verify route, the payment request routes and the x-api-key scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual([VERIFY, ...PAYMENT_PATHS, '/api/v1/verifications/{id}']);
    expect(doc.components.securitySchemes).toEqual({ ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }) });
    expect(Object.keys(doc.paths[VERIFY]!.post.responses).sort()).toEqual(['200', '202', '400', '401', '403', '413', '415', '429', '500', '503']);
  });

  it('is strict enough to catch a changed answer', async () => {
    const { apiKey } = await app.account(1);
    const ok = await call({ qrcode: sandboxQr() }, { 'x-api-key': apiKey });
    const ok200 = responseValidator(200);
    expect(ok200({ ...ok.body, extra: 1 })).toBe(false);
    expect(ok200({ ...ok.body, data: { ...ok.body.data, amount: '100.00' } })).toBe(false);
    expect(ok200({ ...ok.body, checks: { amount: { passed: 'yes', expected: 1, actual: 1 } } })).toBe(false);
    expect(ok200({ status: 'error', code: 1023, message: 'insufficient fund' })).toBe(false);
    expect(responseValidator(401)({ status: 'error', code: 1023, message: 'insufficient fund' })).toBe(false);
    expect(responseValidator(400)({ status: 'error', code: 1022, message: 'user not found!' })).toBe(false);
  });

  it('describes success, with and without every check', async () => {
    const { apiKey } = await app.account(5);
    const qrcode = sandboxQr({ amount: 250 });
    const key = { 'x-api-key': apiKey };
    const plain = await call({ qrcode }, key, 'VerifySuccess');
    expect(plain.body.checks).toBeUndefined();
    expect(plain.headers.get('x-credits-remaining')).toBe('4');
    const checks = { duplicate: true, amount: 250, receiverAccount: '1234', receiverName: 'ร้านกาแฟ ดีดี', maxAgeMinutes: 60 };
    expectValid(requestSchema, { qrcode, checks }, 'request with checks');
    const checked = await call({ qrcode, checks }, key, 'VerifySuccess');
    expect(Object.keys(checked.body.checks)).toEqual(Object.keys(checks));
    expect(checked.body.checks.duplicate.seen).toBe(true);
    await call({ qrcode: sandboxQr(), checks: { duplicate: true, amount: '100.00' } }, key, 'VerifySuccess');
  });

  it('describes 1020–1024 with their statuses, and the balance header where it is sent', async () => {
    const qrcode = sandboxQr();
    expect((await call({ qrcode }, {}, 'Error1020')).status).toBe(401);
    expect((await call({ qrcode }, { 'x-api-key': 'slip_unknownKey00000000000000000000' }, 'Error1021')).status).toBe(401);
    const deleted = await app.account(1);
    await app.accounts.deleteAccount(deleted.accountId);
    expect((await call({ qrcode }, { 'x-api-key': deleted.apiKey }, 'Error1022')).status).toBe(400);
    const broke = await app.account(0);
    const noFund = await call({ qrcode }, { 'x-api-key': broke.apiKey }, 'Error1023');
    expect(noFund.status).toBe(400);
    expect(noFund.headers.get('x-credits-remaining')).toBe('0');
    // TEST-NET-1: never this test's own address.
    const locked = await app.accounts.createApiKey(broke.accountId, ['192.0.2.0/24']);
    const refused = await call({ qrcode }, { 'x-api-key': locked.secret }, 'Error1024');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-credits-remaining')).toBeNull();
  });

  it('describes 1025 and checks.receiver of the receiver policy', async () => {
    const { accountId, apiKey } = await app.account(3);
    const key = { 'x-api-key': apiKey };
    await app.admin.addReceiver('test', { accountId, bankCode: '014', account: '1233131090', nameTh: 'ดีดี', label: 'till 1' });
    await app.admin.setReceiverPolicy('test', accountId, 'require');
    const paid = await call({ qrcode: sandboxQr({ details: { receiverAccount: '1233131090', receiverName: 'ดีดี' } }) }, key, 'VerifySuccess');
    expect(paid.body.checks.receiver).toMatchObject({ passed: true, label: 'till 1', matchedBy: ['account', 'name'] });
    const refused = await call({ qrcode: sandboxQr({ details: { receiverAccount: '9999999999' } }) }, key, 'Error1025');
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-credits-remaining')).toBe('2');
    await app.admin.setReceiverPolicy('test', accountId, 'report');
    const reported = await call({ qrcode: sandboxQr({ details: { receiverAccount: '9999999999' } }), checks: { amount: 100 } }, key, 'VerifySuccess');
    expect(Object.keys(reported.body.checks)).toEqual(['amount', 'receiver']);
  });

  it('describes failed verifications: HTTP 200, no code', async () => {
    const { apiKey } = await app.account(5);
    const key = { 'x-api-key': apiKey };
    for (const outcome of ['not-found', 'error', 'timeout'] as const) {
      const res = await call({ qrcode: sandboxQr({ outcome }), checks: { duplicate: true } }, key, 'VerificationFailed');
      expect(res.status).toBe(200);
    }
    expect((await call({ qrcode: 'not a slip' }, key, 'VerificationFailed')).status).toBe(200);
  });

  it('describes bad requests (400/413/415), and the request schema refuses the same bad checks', async () => {
    const { apiKey } = await app.account(1);
    const key = { 'x-api-key': apiKey };
    const qrcode = sandboxQr();
    for (const checks of [{ nope: true }, { amount: 1.005 }, { amount: -5 }, { duplicate: 'yes' }, { receiverAccount: '12' }, { maxAgeMinutes: 0 }]) {
      expect(requestSchema({ qrcode, checks }), JSON.stringify(checks)).toBe(false);
      expect((await call({ qrcode, checks }, key, 'RequestError')).status).toBe(400);
    }
    for (const body of [{}, { qrcode: 5 }, { qrcode: ' ' }]) {
      expect(requestSchema(body)).toBe(false);
      expect((await call(body, key, 'RequestError')).status).toBe(400);
    }
    expect((await call('{"qrcode":', key, 'RequestError')).status).toBe(400);
    expect((await call({ qrcode: 'x'.repeat(20_000) }, key, 'RequestError')).status).toBe(413);
    const unsupported = await call('qrcode=x', { ...key, 'content-type': 'text/plain' }, 'RequestError');
    expect(unsupported.status).toBe(415);
    expect(unsupported.headers.get('x-credits-remaining')).toBe('1');
  });

  it('describes 429 with Retry-After', async () => {
    const { apiKey } = await app.account(2);
    const key = { 'x-api-key': apiKey };
    const blocker = app.verify(apiKey, sandboxQr({ outcome: 'timeout' }));
    await eventually(async () => app.verification.inFlightCount > 0);
    const busy = await call({ qrcode: sandboxQr() }, key, 'RequestError');
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
    await blocker;
  });

  it('describes image bodies: success, no QR in the picture, bad pictures, decoder busy', async () => {
    const { apiKey } = await app.account(3);
    const key = { 'x-api-key': apiKey };
    const qrcode = sandboxQr({ amount: 120 });
    const picture = (await QRCode.toBuffer(qrcode, { width: 400, margin: 4 })).toString('base64');
    for (const body of [{ image: picture }, { image: `data:image/png;base64,${picture}`, checks: { amount: 120 } }]) {
      expectValid(requestSchema, body, 'image request');
      expect((await call(body, key, 'VerifySuccess')).body.qrcode).toBe(qrcode);
    }
    const blank = (await sharp({ create: { width: 300, height: 300, channels: 3, background: '#fff' } }).png().toBuffer()).toString('base64');
    const noQr = await call({ image: blank }, key, 'VerificationFailed');
    expect(noQr.body).toStrictEqual({ status: 'error', message: 'no slip QR code found in the image' });
    for (const body of [{ image: picture, qrcode }, { image: 'not base64!' }]) {
      expect(requestSchema(body), JSON.stringify(body).slice(0, 60)).toBe(false);
      expect((await call(body, key, 'RequestError')).status).toBe(400);
    }
    expect((await call({ image: Buffer.from('plain text').toString('base64') }, key, 'RequestError')).status).toBe(400);

    const small = await startApp({ env: { IMAGE_WORKERS: '1', IMAGE_QUEUE_MAX: '0', IMAGE_DECODE_TIMEOUT_MS: '1000' } });
    try {
      const other = await small.account(2);
      // A QR that never reads keeps the one decoder thread past its 1 s budget.
      const slow = small.post({ image: (await unreadableQrPicture()).toString('base64') }, { 'x-api-key': other.apiKey });
      await eventually(async () => small.images.stats.running === 1);
      const busy = await small.post({ image: picture }, { 'x-api-key': other.apiKey });
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
      expectValid(responseValidator(429), busy.body, 'HTTP 429');
      expectValid(ajvComponent('RequestError'), busy.body, 'RequestError');
      expectValid(responseValidator(200), (await slow).body, 'HTTP 200');
    } finally {
      await small.stop();
    }
  });

  it('describes 503 when slipgate loses its store', async () => {
    const broken = await startApp();
    try {
      const { apiKey } = await broken.account(1);
      // Warm the key cache, then take the database away.
      await broken.verify(apiKey, sandboxQr());
      await broken.store.close();
      const res = await broken.post({ qrcode: sandboxQr() }, { 'x-api-key': apiKey });
      expect(res.status).toBe(503);
      expectValid(responseValidator(503), res.body, 'HTTP 503');
    } finally {
      await broken.stop().catch(() => undefined);
    }
  });
});
