// POST /api/v1/verify end to end: real listeners, real store, every section of docs/contract.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr, slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import { parseSlipQr, writtenReference } from '../../src/domain/verify/slip-qr.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';

const DATA_FIELDS = {
  amount: 'number',
  dateTime: 'string',
  timestamp: 'number',
  transactionId: 'string',
  senderBankAccountNumber: 'string',
  senderName: 'string',
  senderNameEN: 'string',
  senderBank: 'string',
  senderBankCode: 'string',
  receiverBankAccountNumber: 'string',
  receiverName: 'string',
  receiverNameEN: 'string',
  receiverBank: 'string',
  receiverBankCode: 'string',
  receiverPromptpay: 'string',
  receiverProxyType: 'string',
  rawData: 'object',
};

describe.each(testEngines())('POST /api/v1/verify on %s', (engine) => {
  let app: TestApp;
  const upstream = counting(new SandboxUpstream());

  beforeAll(async () => {
    app = await startApp({ upstream, databaseUrl: await engine.databaseUrl(), env: { UPSTREAM_TIMEOUT_MS: '400' } });
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose?.();
  });

  const balance = async (accountId: string) => {
    const a = await app.store.getAccount(accountId);
    return { credits: a!.credits, held: a!.held, usage: a!.usage };
  };
  const errorsOf = async (accountId: string | undefined) => (await app.store.listRequestErrors({ accountId, limit: 100 })).items;

  it('verifies a slip, returns the spec body and charges one credit', async () => {
    const { accountId, apiKey } = await app.account(3);
    const qrcode = sandboxQr({ bank: '014', amount: 250 });
    const res = await app.verify(apiKey, qrcode);

    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    expect(Object.keys(res.body)).toEqual(['status', 'data', 'message', 'qrcode']);
    expect(res.body.status).toBe('success');
    expect(res.body.qrcode).toBe(qrcode);
    expect(typeof res.body.message).toBe('string');
    expect(Object.fromEntries(Object.entries(res.body.data).map(([k, v]) => [k, typeof v]))).toEqual(DATA_FIELDS);
    expect(res.body.data.amount).toBe(250);
    expect(res.body.data.senderBank).toBe('SCB');
    expect(res.body.data.senderBankCode).toBe('014');
    expect(res.body.data.dateTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    expect(res.body.data.timestamp).toBe(Date.parse(res.body.data.dateTime) / 1000);
    // rawData is what the network sent, key for key and type for type.
    // transactionId is the slip's identity (upper case); the bank was asked with the QR's own spelling.
    const transRef = res.body.data.transactionId as string;
    const parsed = parseSlipQr(qrcode);
    expect(parsed).toMatchObject({ ok: true, slip: { transRef } });
    expect(res.body.data.rawData).toStrictEqual(JSON.parse(JSON.stringify(sandboxTransaction('014', parsed.ok ? writtenReference(qrcode, parsed.slip) : ''))));

    expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 1 });
    const records = (await app.store.listVerifyTransactions({ accountId, limit: 10 })).items;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ transactionId: transRef, amount: 250, sendingBank: '014', upstream: 'sandbox', qrcode, requestId: res.headers.get('x-request-id') });
    expect(records[0]!.response).toEqual(res.body.data);
  });

  it('charges twice for the same QR sent twice (no idempotency)', async () => {
    const { accountId, apiKey } = await app.account(5);
    const qrcode = sandboxQr();
    const first = await app.verify(apiKey, qrcode);
    const second = await app.verify(apiKey, qrcode);
    expect([first.body.status, second.body.status]).toEqual(['success', 'success']);
    expect(second.body.data).toEqual(first.body.data);
    expect(await balance(accountId)).toEqual({ credits: 3, held: 0, usage: 2 });
  });

  describe('authentication and account errors (docs/contract.md#account-errors)', () => {
    it('1020: no x-api-key header', async () => {
      const res = await app.post({ qrcode: sandboxQr() });
      expect(res.status).toBe(401);
      expect(res.body).toStrictEqual({ status: 'error', code: 1020, message: 'api key is missing' });
      expect(res.headers.get('x-request-id')).toMatch(/.+/);
    });

    it('1021: a key that matches no account, and a revoked key', async () => {
      const unknown = await app.verify('slip_notARealKeyAtAll000000000000', sandboxQr());
      expect(unknown.status).toBe(401);
      expect(unknown.body).toStrictEqual({ status: 'error', code: 1021, message: 'invalid api key' });

      const { accountId, apiKey } = await app.account(2);
      const [key] = await app.store.listApiKeys(accountId);
      await app.accounts.revokeApiKey(key!.id);
      const revoked = await app.verify(apiKey, sandboxQr());
      expect(revoked.status).toBe(401);
      expect(revoked.body).toStrictEqual({ status: 'error', code: 1021, message: 'invalid api key' });
      expect(await balance(accountId)).toEqual({ credits: 2, held: 0, usage: 0 });
    });

    it('1022: a key whose account was deleted', async () => {
      const { accountId, apiKey } = await app.account(2);
      await app.accounts.deleteAccount(accountId);
      const res = await app.verify(apiKey, sandboxQr());
      expect(res.status).toBe(400);
      expect(res.body).toStrictEqual({ status: 'error', code: 1022, message: 'user not found' });
      expect((await errorsOf(accountId)).map((e) => e.kind)).toEqual(['user_not_found']);
    });

    it('1023: an account with no credits left', async () => {
      const { accountId, apiKey } = await app.account(0);
      const calls = upstream.calls;
      const res = await app.verify(apiKey, sandboxQr());
      expect(res.status).toBe(400);
      expect(res.body).toStrictEqual({ status: 'error', code: 1023, message: 'insufficient fund' });
      expect(upstream.calls).toBe(calls);
      expect(await balance(accountId)).toEqual({ credits: 0, held: 0, usage: 0 });
    });

    it('checks in the order 1020 → 1021 → 1022 → body → 1023 → QR', async () => {
      const junk = '{not json';
      expect((await app.post(junk)).body.code).toBe(1020);
      expect((await app.post(junk, { 'x-api-key': 'slip_wrong' })).body.code).toBe(1021);
      // A body too large to read is a body error too: the key is judged first.
      const huge = { qrcode: 'x'.repeat(20_000) };
      expect(await app.post(huge)).toMatchObject({ status: 401, body: { code: 1020 } });
      expect(await app.post(huge, { 'x-api-key': 'slip_wrong' })).toMatchObject({ status: 401, body: { code: 1021 } });

      const deleted = await app.account(1);
      await app.accounts.deleteAccount(deleted.accountId);
      expect((await app.post(junk, { 'x-api-key': deleted.apiKey })).body.code).toBe(1022);

      const empty = await app.account(0);
      const badBody = await app.post(junk, { 'x-api-key': empty.apiKey });
      expect(badBody.status).toBe(400);
      expect(badBody.body.code).toBeUndefined();
      const badQr = await app.verify(empty.apiKey, 'not a slip');
      expect(badQr.body).toStrictEqual({ status: 'error', code: 1023, message: 'insufficient fund' });
    });
  });

  describe('bad input: a clear 4xx, nothing stored, nothing charged', () => {
    const cases: [string, string | unknown, Record<string, string>, number, RegExp][] = [
      ['invalid JSON', '{"qrcode": ', {}, 400, /not valid JSON/],
      ['an array body', '[1,2]', {}, 400, /JSON object/],
      ['missing qrcode', {}, {}, 400, /qrcode is required/],
      ['a number qrcode', { qrcode: 42 }, {}, 400, /must be a string/],
      ['an object qrcode', { qrcode: { a: 1 } }, {}, 400, /must be a string/],
      ['an empty qrcode', { qrcode: '  ' }, {}, 400, /must not be empty/],
      ['a non-JSON content type', 'qrcode=abc', { 'content-type': 'application/x-www-form-urlencoded' }, 415, /application\/json/],
      ['a body over 16 KiB', { qrcode: 'x'.repeat(17_000) }, {}, 413, /larger than 16384 bytes/],
    ];
    it.each(cases)('%s', async (_name, body, headers, status, message) => {
      const { accountId, apiKey } = await app.account(1);
      const res = await app.post(body, { 'x-api-key': apiKey, ...headers });
      expect(res.status).toBe(status);
      expect(res.body).toStrictEqual({ status: 'error', message: expect.stringMatching(message) });
      expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
      expect(await errorsOf(accountId)).toEqual([]);
    });
  });

  describe('verification failures: HTTP 200, no code, no charge, a RequestError', () => {
    it('a malformed QR never reaches the network', async () => {
      const { accountId, apiKey } = await app.account(1);
      const calls = upstream.calls;
      const tampered = '004600060000010103014022520201107013FsG6joxJrXDrbJ5102TH91040000';
      const res = await app.verify(apiKey, tampered);
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ status: 'error', message: 'invalid slip QR code: QR code checksum does not match' });
      expect(upstream.calls).toBe(calls);
      expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
      expect(await errorsOf(accountId)).toMatchObject([{ kind: 'invalid_qr', qrcode: tampered, upstream: null }]);
    });

    it.each([
      ['not-found', 'slip_not_found', /slip not found/],
      ['error', 'upstream_error', /verification service error/],
    ] as const)('the network answers %s', async (outcome, kind, message) => {
      const { accountId, apiKey } = await app.account(1);
      const res = await app.verify(apiKey, sandboxQr({ outcome }));
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ status: 'error', message: expect.stringMatching(message) });
      expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
      expect(await errorsOf(accountId)).toMatchObject([{ kind, upstream: 'sandbox' }]);
    });

    it('a network call that never answers is cut off by the budget and answered as a timeout, free', async () => {
      const { accountId, apiKey } = await app.account(1);
      const callsBefore = upstream.calls;
      // The sandbox's "timeout" slip never answers unless its call is aborted:
      // any answer at all means slipgate's budget ended the wait.
      const res = await app.verify(apiKey, sandboxQr({ outcome: 'timeout' }));
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ status: 'error', message: 'verification service timed out' });
      expect(upstream.calls).toBe(callsBefore + 1);
      expect(upstream.signals.at(-1)!.aborted).toBe(true);
      expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
      expect(await errorsOf(accountId)).toMatchObject([{ kind: 'upstream_timeout' }]);
    });
  });

  concurrencyCase(engine)('never overdraws: 50 simultaneous requests against 5 credits', async () => {
    const { accountId, apiKey } = await app.account(5);
    const results = await Promise.all(Array.from({ length: 50 }, () => app.verify(apiKey, sandboxQr())));
    expect(results.filter((r) => r.status === 200 && r.body.status === 'success')).toHaveLength(5);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(45);
    for (const r of refused) expect(r.body).toStrictEqual({ status: 'error', code: 1023, message: 'insufficient fund' });
    expect(await balance(accountId)).toEqual({ credits: 0, held: 0, usage: 5 });
    expect((await app.store.listVerifyTransactions({ accountId, limit: 100 })).items).toHaveLength(5);
    // Identities, not counts: the requests answered "verified" are exactly the ones recorded (and so
    // charged: each record is written with its usage +1), read through the engine's own driver; the
    // ones answered 1023 are exactly the insufficient-fund records.
    const ids = (rs: typeof results) => rs.map((r) => r.headers.get('x-request-id')!).sort();
    const raw = await openRawBooks(app.databaseUrl);
    try {
      expect(await raw.verifiedRequestIds(accountId)).toEqual(ids(results.filter((r) => r.body.status === 'success')));
    } finally {
      await raw.close();
    }
    const refusedRecords = await app.store.listRequestErrors({ accountId, kind: 'insufficient_fund', limit: 100 });
    expect(refusedRecords.items.map((e) => e.requestId).sort()).toEqual(ids(refused));
  });

  it('accepts a real-world QR whose CRC lost its leading zeros', async () => {
    const { apiKey } = await app.account(1);
    const full = slipQr('004', '013071152533APM07736');
    const res = await app.verify(apiKey, full.replace(/9104(0+)([0-9A-F]+)$/, '9104$2'));
    expect(full).toMatch(/9104[0-9A-F]{4}$/);
    expect(res.body.status).toBe('success');
  });
});

describe('the public listener serves exactly one route (test/e2e/public-listener.test.ts: every other path, the go-live challenge)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app?.stop());

  it.each([
    ['GET', '/api/v1/verify', 405],
    ['PUT', '/api/v1/verify', 405],
    ['GET', '/', 404],
    ['POST', '/graphql', 404],
    ['GET', '/readyz', 404],
    ['POST', '/api/v2/verify', 404],
    // Exactly one route: no case-folded or trailing-slash twin that also charges.
    ['POST', '/API/V1/VERIFY', 404],
    ['POST', '/api/v1/verify/', 404],
  ])('%s %s → %i JSON', async (method, path, status) => {
    const res = await fetch(app.publicUrl + path, { method });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    if (status === 405) expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toStrictEqual({ status: 'error', message: expect.any(String) });
  });

  it('echoes a sane caller request id and replaces an unsafe one', async () => {
    const mine = await fetch(`${app.publicUrl}/nope`, { headers: { 'x-request-id': 'order-42.a' } });
    expect(mine.headers.get('x-request-id')).toBe('order-42.a');
    const unsafe = await fetch(`${app.publicUrl}/nope`, { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).not.toBe('a b<script>');
  });

  it('the admin listener answers health and readiness, the public one does not', async () => {
    expect(await (await fetch(`${app.adminUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${app.adminUrl}/readyz`)).json()).toMatchObject({ status: 'ok' });
  });
});

describe('POST /api/v1/verify with a bank answer slipgate cannot read', () => {
  let app: TestApp;
  // A real Upstream whose transaction blows up when read: the mapper's
  // unexpected failure, not one of its own refusals.
  const sandbox = new SandboxUpstream();
  const broken = {
    name: 'broken',
    async verify(query: Parameters<SandboxUpstream['verify']>[0], signal: AbortSignal) {
      const result = await sandbox.verify(query, signal);
      if (!result.ok) return result;
      const data = { ...(result.data as object) };
      Object.defineProperty(data, 'amount', { get: () => { throw new TypeError('cannot read amount'); }, enumerable: true });
      return { ...result, upstream: 'broken', data };
    },
  };
  beforeAll(async () => {
    app = await startApp({ upstream: broken });
  });
  afterAll(() => app?.stop());

  it('answers the spec’s HTTP 200 error, releases the credit and records the failure', async () => {
    const { accountId, apiKey } = await app.account(1);
    const res = await app.verify(apiKey, sandboxQr());
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ status: 'error', message: expect.stringMatching(/^verification service error/) });
    const account = await app.store.getAccount(accountId);
    expect({ credits: account!.credits, held: account!.held, usage: account!.usage }).toEqual({ credits: 1, held: 0, usage: 0 });
    expect((await app.store.listRequestErrors({ accountId, limit: 10 })).items).toMatchObject([{ kind: 'upstream_error', upstream: 'broken' }]);
  });
});
