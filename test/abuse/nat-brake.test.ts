// One brake policy on every route that takes a key (src/domain/keys/gate.ts):
// a key that resolves is served even from an address the brake holds (many
// merchants share one carrier NAT), and missing or unknown keys are braked,
// counted and held on the payment request routes as on the verify route, so
// no route tells a bad key from a good one by answering it differently.
// Through a real server, behind a proxy as deployed (X-Forwarded-For).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import openapi from '../../openapi.json' with { type: 'json' };

const { AUTH_FAILURES_PER_IP_PER_MIN: LIMIT } = loadConfig({});
const BRAKED = { status: 'error', message: 'too many failed authentications from this address; retry later' };
const PATH = '/api/v1/payment-requests';
/** How long a braked refusal is held before its 429: short here, the brake's rule is what is tested. */
const DELAY_MS = 200;

describe('the failed-auth brake on every keyed route', () => {
  const dir = tempDir('slipgate-nat-');
  const file = `${dir.path}/slipgate.db`;
  let app: TestApp;
  let merchant: { accountId: string; apiKey: string };
  beforeAll(async () => {
    app = await startApp({ databaseUrl: `sqlite:${file}`, env: { TRUST_PROXY_HOPS: '1', AUTH_BRAKE_DELAY_MS: String(DELAY_MS) } });
    merchant = await app.account(100);
    await app.admin.addReceiver('test', { accountId: merchant.accountId, promptPay: '0812345678', nameEn: 'NAT NOODLES' });
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });
  /** The refusal records, read from the file (also once the server stopped). */
  const records = () => sqliteRows<{ kind: string; message: string }>(file, 'SELECT kind, message FROM request_errors');
  const refusalRecords = () => records().filter((r) => r.kind === 'invalid_api_key' || r.kind === 'missing_api_key').length;

  const verify = (ip: string, apiKey: string | null) => app.post({ qrcode: sandboxQr() }, { 'x-forwarded-for': ip, ...(apiKey === null ? {} : { 'x-api-key': apiKey }) });
  const call = async (ip: string, method: string, path: string, apiKey: string | null, body?: unknown) => {
    const res = await fetch(app.publicUrl + path, {
      method,
      headers: { 'x-forwarded-for': ip, ...(apiKey === null ? {} : { 'x-api-key': apiKey }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, type, headers: res.headers, body: type.startsWith('application/json') ? await res.json() : Buffer.from(await res.arrayBuffer()) };
  };
  /** Refusals from `ip` until the brake holds it (the minute may turn on the way, so up to twice the limit). */
  const brake = async (ip: string, refuse: (i: number) => Promise<{ status: number; body: any }>) => {
    const codes: number[] = [];
    for (let i = 0; i < 2 * LIMIT + 1; i++) {
      const answer = await refuse(i);
      if (answer.status === 429) {
        expect(answer.body).toStrictEqual(BRAKED);
        return codes;
      }
      codes.push(answer.body.code);
    }
    throw new Error(`${ip} was never braked`);
  };

  /** A refusal from a braked address: 429. Should the minute turn meanwhile (the brake starts afresh), braked again first. */
  const whileBraked = async (ip: string, send: () => Promise<{ status: number; body: any }>) => {
    let answer = await send();
    if (answer.status !== 429) {
      await brake(ip, () => verify(ip, generateApiKey().key));
      answer = await send();
    }
    return answer;
  };

  it('serves a valid key from an address braked by 21+ bad keys (a carrier NAT), on verify and on the payment routes', async () => {
    const NAT = '203.0.113.70';
    const codes = await brake(NAT, () => verify(NAT, generateApiKey().key));
    expect(new Set(codes)).toEqual(new Set([1021]));
    expect(codes.length).toBeGreaterThanOrEqual(LIMIT);

    const verified = await verify(NAT, merchant.apiKey);
    expect(verified.status).toBe(200);
    expect(verified.body.message).toBe('slip verified');
    const created = await call(NAT, 'POST', PATH, merchant.apiKey, { amount: 120, reference: 'nat-1' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await call(NAT, 'GET', `${PATH}/${id}`, merchant.apiKey)).body.data).toMatchObject({ id, status: 'pending' });
    expect((await call(NAT, 'GET', `${PATH}?reference=nat-1`, merchant.apiKey)).body.data.id).toBe(id);
    const png = await call(NAT, 'GET', `${PATH}/${id}/qr.png`, merchant.apiKey);
    expect([png.status, png.type]).toEqual([200, 'image/png']);
    expect((await call(NAT, 'POST', `${PATH}/${id}/cancel`, merchant.apiKey)).body.data.status).toBe('cancelled');

    // Bad and missing keys from it are still braked, on every route.
    const locked = await app.accounts.createApiKey(merchant.accountId, ['198.51.100.0/24']);
    for (const send of [
      () => verify(NAT, generateApiKey().key),
      () => verify(NAT, null),
      () => call(NAT, 'GET', `${PATH}/${id}`, generateApiKey().key),
      () => call(NAT, 'GET', `${PATH}/${id}/qr.png`, null),
      // A real key used from outside its ranges is a refusal like any other there.
      () => call(NAT, 'GET', `${PATH}/${id}`, locked.secret),
    ]) {
      const answer = await whileBraked(NAT, send);
      expect(answer.status).toBe(429);
      expect(answer.body).toStrictEqual(BRAKED);
    }
  });

  it('covers every route the contract says takes a key (openapi.json): none answers a braked bad key but 429, none refuses a good one', async () => {
    const NAT = '203.0.113.75';
    await brake(NAT, () => verify(NAT, generateApiKey().key));
    const id = (await call(NAT, 'POST', PATH, merchant.apiKey, { amount: 80, reference: 'nat-walk' })).body.data.id as string;
    // A slip the sandbox bank does not know, kept for re-checks: the id GET /api/v1/verifications/{id} reads.
    const kept = (await call(NAT, 'POST', '/api/v1/verify', merchant.apiKey, { qrcode: sandboxQr({ outcome: 'not-found' }), recheck: true })).body.verificationId as string;
    const idOf = (path: string) => (path.startsWith('/api/v1/verifications/') ? kept : id);
    const keyed = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { security?: unknown[] }>)
        .filter(([, op]) => (op.security ?? openapi.security).some((s) => Object.keys(s as object).includes('ApiKey')))
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace('{id}', idOf(path)) + (method === 'get' && path === PATH ? '?reference=nat-walk' : '') })),
    );
    expect(keyed.length).toBeGreaterThanOrEqual(7);
    for (const { method, path } of keyed) {
      const body = method === 'POST' ? (path === PATH ? { amount: 80, reference: 'nat-walk' } : path.endsWith('/verify') ? { qrcode: sandboxQr() } : {}) : undefined;
      for (const bad of [generateApiKey().key, null]) {
        const answer = await whileBraked(NAT, () => call(NAT, method, path, bad, body));
        expect([method, path, answer.status, answer.body]).toStrictEqual([method, path, 429, BRAKED]);
      }
      const good = await call(NAT, method, path, merchant.apiKey, body);
      expect([method, path, good.status < 300]).toEqual([method, path, true]);
    }
  });

  it('brakes, counts and holds bad keys on the payment routes as on verify', async () => {
    const PROBER = '203.0.113.80';
    const before = refusalRecords();
    const routes = [
      (key: string | null) => call(PROBER, 'GET', `${PATH}/pr_${'0'.repeat(32)}`, key),
      (key: string | null) => call(PROBER, 'GET', `${PATH}/pr_${'0'.repeat(32)}/qr.png`, key),
      (key: string | null) => call(PROBER, 'POST', PATH, key, { amount: 1, reference: 'probe' }),
      (key: string | null) => call(PROBER, 'GET', `${PATH}?reference=probe`, key),
    ];
    // Every route, with an unknown key or none: the contract's answers, recorded one by one, until the limit.
    const codes = await brake(PROBER, (i) => routes[i % routes.length]!(i % 5 === 4 ? null : generateApiKey().key));
    expect(new Set(codes)).toEqual(new Set([1020, 1021]));
    expect(refusalRecords() - before).toBe(codes.length);

    // Held: a merchant asking later from another address is answered first.
    let heldDone = false;
    const held = routes[1]!(generateApiKey().key).finally(() => (heldDone = true));
    const other = await call('198.51.100.20', 'GET', `${PATH}?reference=nat-1`, merchant.apiKey);
    expect(other.status).toBe(200);
    expect(heldDone).toBe(false);
    const answer = await held;
    expect(answer.status).toBe(429);
    expect(answer.body).toStrictEqual(BRAKED);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Counted: the 429s go into the address's one summary record when the server stops.
    await app.stop();
    const summaries = records().filter((r) => r.kind === 'auth_rate_limited' && r.message.includes(` from ${PROBER} `));
    expect(summaries.reduce((n, r) => n + Number(/^(\d+) requests/.exec(r.message)![1]), 0)).toBeGreaterThanOrEqual(2);
  });
});
