// openapi.json's payment request routes against real answers of a running
// slipgate: each answer matches the schema documented for its route and
// status, and a verification with paymentRequest matches VerifySuccess.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { call, create, PATH, shop, slipFor, type Shop } from '../payments/helpers.js';
import { bankSimulator, startSimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';

const ID = 'https://slipgate.local/openapi.json';
const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, multipleOfPrecision: 6 });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'paths', 'components']);
ajv.addSchema({ ...doc, $id: ID });
const pointer = (...parts: string[]) => `${ID}#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function expectDocumented(path: string, method: string, status: number, body: unknown): void {
  const v = ajv.compile({ $ref: pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema') });
  expect(v(body), `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body)}`).toBe(true);
}

describe('openapi.json: payment requests', () => {
  let app: TestApp;
  let merchant: Shop;
  beforeAll(async () => {
    app = await startApp();
    merchant = await shop(app, 5);
  });
  afterAll(() => app?.stop());

  it('documents every answer of the payment request routes as they are', async () => {
    const requestSchema = ajv.compile({ $ref: pointer('components', 'schemas', 'PaymentRequestCreate') });
    const body = { amount: '99.50', reference: 'doc-1', expiresInMinutes: 15 };
    expect(requestSchema(body)).toBe(true);
    expect(requestSchema({ amount: 1, reference: 'x', colour: 'red' })).toBe(false);
    const made = await create(app, merchant, body);
    expectDocumented(PATH, 'post', 201, made.body);
    expectDocumented(PATH, 'post', 200, (await create(app, merchant, body)).body);
    const reused = await create(app, merchant, { ...body, amount: 100 });
    expect(reused.status).toBe(409);
    expectDocumented(PATH, 'post', 409, reused.body);
    expectDocumented(PATH, 'post', 400, (await create(app, merchant, { amount: 0, reference: 'x' })).body);
    expectDocumented(PATH, 'post', 401, (await call(app, 'POST', PATH, null, body)).body);
    expectDocumented(PATH, 'get', 200, (await call(app, 'GET', `${PATH}?reference=doc-1`, merchant.apiKey)).body);
    expectDocumented(PATH, 'get', 404, (await call(app, 'GET', `${PATH}?reference=none`, merchant.apiKey)).body);
    const id = made.body.data.id as string;
    expectDocumented(`${PATH}/{id}`, 'get', 200, (await call(app, 'GET', `${PATH}/${id}`, merchant.apiKey)).body);
    const verified = await app.post({ qrcode: slipFor({ amount: 99.5 }), paymentRequest: id }, { 'x-api-key': merchant.apiKey });
    expectDocumented('/api/v1/verify', 'post', 200, verified.body);
    expect(verified.body.paymentRequest).toEqual({ id, status: 'paid' });
    expectDocumented(`${PATH}/{id}`, 'get', 200, (await call(app, 'GET', `${PATH}/${id}`, merchant.apiKey)).body);
    expectDocumented(`${PATH}/{id}/cancel`, 'post', 409, (await call(app, 'POST', `${PATH}/${id}/cancel`, merchant.apiKey)).body);
    const other = (await create(app, merchant, { amount: 1, reference: 'doc-2' })).body.data.id as string;
    expectDocumented(`${PATH}/{id}/cancel`, 'post', 200, (await call(app, 'POST', `${PATH}/${other}/cancel`, merchant.apiKey)).body);
  });

  it('documents the re-check answers: 202 pending, verifying, 1027, GET /api/v1/verifications/{id}', async () => {
    const bank = await startSimulatedBank({ provider: 'kbank', port: 0, behavior: { answer: 'not_found' } });
    const { id: clientId, secret } = bankSimulator('kbank').credentials;
    const env = { UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId, clientSecret: secret }]), RECHECK_MAX_PER_ACCOUNT: '2' };
    const late = await startApp({ upstream: null, env, recheckTiming: { windowMs: 60_000, firstDelayMs: 1, maxDelayMs: 1, pollMs: 3_600_000 } });
    try {
      const s = await shop(late, 5);
      const id = (await create(late, s, { amount: 42, reference: 'late-doc' })).body.data.id as string;
      const kept = await late.post({ qrcode: slipFor({ amount: 42 }), paymentRequest: id }, { 'x-api-key': s.apiKey });
      expect(kept.status).toBe(202);
      expectDocumented('/api/v1/verify', 'post', 202, kept.body);
      const plain = await late.post({ qrcode: slipFor({ amount: 43 }), recheck: true }, { 'x-api-key': s.apiKey });
      expectDocumented('/api/v1/verify', 'post', 202, plain.body);
      const beyond = await late.post({ qrcode: slipFor({ amount: 44 }), recheck: true }, { 'x-api-key': s.apiKey });
      expect(beyond.status).toBe(429);
      expectDocumented('/api/v1/verify', 'post', 429, beyond.body);
      const verifying = (await call(late, 'GET', `${PATH}/${id}`, s.apiKey)).body;
      expect(verifying.data.status).toBe('verifying');
      expectDocumented(`${PATH}/{id}`, 'get', 200, verifying);
      const read = (v: string) => call(late, 'GET', `/api/v1/verifications/${v}`, s.apiKey);
      expectDocumented('/api/v1/verifications/{id}', 'get', 200, (await read(kept.body.verificationId)).body);
      expectDocumented('/api/v1/verifications/{id}', 'get', 404, (await read('req_none')).body);
      bank.state.behavior.answer = 'normal';
      await late.rechecks.runOnce();
      for (const v of [kept.body.verificationId, plain.body.verificationId]) {
        const done = (await read(v)).body;
        expect(done.status).toBe('success');
        expectDocumented('/api/v1/verifications/{id}', 'get', 200, done);
      }
    } finally {
      await late.stop();
      await bank.close();
    }
  });
});
