// slipgate/client against a real running slipgate: typed results for every
// answer, retries only where nothing can have been charged.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, ERROR_CODES, SlipgateError, type AmountResult, type ClientOptions, type VerifyResult } from '../../src/client/index.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';

/** A real HTTP server in front of slipgate that misbehaves on purpose first. */
async function frontServer(app: TestApp, plan: ('503' | 'reset' | 'forward')[], port = 0): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer(async (req, res) => {
    const step = plan[Math.min(hits++, plan.length - 1)];
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (step === 'reset') return req.socket.destroy();
    if (step === '503') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      return res.end(JSON.stringify({ status: 'error', message: 'service temporarily unavailable' }));
    }
    const upstream = await fetch(app.publicUrl + req.url, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe('package exports', () => {
  it('maps slipgate/client entry points to the built files of src/client', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, string | { types: string; default: string }>; bin: Record<string, string> };
    expect(pkg.bin.slipgate).toBe('dist/entry.cjs');
    for (const [name, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      expect(target.default, name).toMatch(/^\.\/dist\/client\/.+\.js$/);
      expect(target.types, name).toBe(target.default.replace(/\.js$/, '.d.ts'));
      // tsconfig.build.json compiles src/ to dist/ (rootDir src).
      const source = new URL(`../../${target.default.replace('./dist/', 'src/').replace(/\.js$/, '.ts')}`, import.meta.url);
      expect(existsSync(source), `${name} → ${source.pathname}`).toBe(true);
    }
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['./client', './client/image', './client/pixels', './client/webhooks']));
  });
});

describe('slipgate/client', () => {
  let app: TestApp;
  const servers: Server[] = [];
  beforeAll(async () => {
    app = await startApp({ env: { MAX_INFLIGHT_PER_ACCOUNT: '1', UPSTREAM_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => {
    await Promise.all(servers.map(close));
    await app?.stop();
  });

  const client = (apiKey: string, extra: Partial<ClientOptions> = {}) => {
    const retries: string[] = [];
    const c = createClient({ url: app.publicUrl, apiKey, retryDelayMs: 20, onRetry: (r) => retries.push(r.reason), ...extra });
    return { c, retries };
  };
  const balance = async (accountId: string) => {
    const a = await app.store.getAccount(accountId);
    return { credits: a!.credits, usage: a!.usage };
  };

  it('returns the success body, typed, with no checks key when none were asked', async () => {
    const { accountId, apiKey } = await app.account(2);
    const { c, retries } = client(apiKey);
    const qrcode = sandboxQr({ amount: 99.5 });
    const r = await c.verify(qrcode);
    expectTypeOf(r).toEqualTypeOf<VerifyResult>();
    expect(r.status).toBe('success');
    if (r.status !== 'success') return;
    expect(r).toMatchObject({ httpStatus: 200, message: 'slip verified', qrcode, data: { amount: 99.5 }, creditsRemaining: 1 });
    expectTypeOf(r.creditsRemaining).toEqualTypeOf<number | undefined>();
    expect('checks' in r).toBe(false);
    expect(retries).toEqual([]);
    expect(await balance(accountId)).toEqual({ credits: 1, usage: 1 });
  });

  it('verifyImage sends a slip picture (bytes or base64) for slipgate to read', async () => {
    const { accountId, apiKey } = await app.account(3);
    const { c } = client(apiKey);
    const qrcode = sandboxQr({ amount: 75 });
    const picture = await QRCode.toBuffer(qrcode, { width: 400, margin: 4 });
    const fromBytes = await c.verifyImage(new Uint8Array(picture));
    expectTypeOf(fromBytes).toEqualTypeOf<VerifyResult>();
    expect(fromBytes).toMatchObject({ status: 'success', qrcode, data: { amount: 75 } });
    const fromDataUrl = await c.verifyImage(`data:image/png;base64,${picture.toString('base64')}`, { checks: { amount: 75 } });
    if (fromDataUrl.status !== 'success') throw new Error(`expected success, got ${JSON.stringify(fromDataUrl)}`);
    expect(fromDataUrl.checks.amount).toStrictEqual({ passed: true, expected: 75, actual: 75 });
    const notAPicture = await c.verifyImage(new TextEncoder().encode('hello'));
    expect(notAPicture).toMatchObject({ status: 'error', kind: 'invalid_request', httpStatus: 400 });
    expect(await balance(accountId)).toEqual({ credits: 1, usage: 2 });
  });

  it('verifyImage sends bytes as the raw body, its options as query parameters, and base64 text as JSON', async () => {
    const { apiKey } = await app.account(3);
    const seen: Array<{ contentType?: string; url?: string; body: Buffer }> = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      seen.push({ contentType: req.headers['content-type'], url: req.url, body });
      const upstream = await fetch(app.publicUrl + req.url, { method: 'POST', headers: req.headers as Record<string, string>, body });
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(await upstream.text());
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { c } = client(apiKey, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const qrcode = sandboxQr({ amount: 40 });
    const picture = await QRCode.toBuffer(qrcode, { width: 300, margin: 4 });
    const paymentRequest = `pr_${'a'.repeat(32)}`;

    const plain = await c.verifyImage(picture);
    const checked = await c.verifyImage(picture.buffer.slice(picture.byteOffset, picture.byteOffset + picture.length) as ArrayBuffer, { checks: { amount: 40 } });
    const paying = await c.verifyImage(picture, { paymentRequest });
    const asText = await c.verifyImage(picture.toString('base64'));

    expect(plain).toMatchObject({ status: 'success', qrcode });
    expect(checked).toMatchObject({ status: 'success', checks: { amount: { passed: true } } });
    expect(paying).toMatchObject({ status: 'error', httpStatus: 400, message: `paymentRequest ${paymentRequest} not found` });
    expect(asText).toMatchObject({ status: 'success', qrcode });
    expect(seen.map((s) => [s.contentType, s.url])).toStrictEqual([
      ['image/png', '/api/v1/verify'],
      ['image/png', `/api/v1/verify?checks=${encodeURIComponent('{"amount":40}')}`],
      ['image/png', `/api/v1/verify?paymentRequest=${paymentRequest}`],
      ['application/json', '/api/v1/verify'],
    ]);
    expect(seen.slice(0, 3).every((s) => s.body.equals(picture))).toBe(true);
    expect(JSON.parse(seen[3]!.body.toString('utf8'))).toStrictEqual({ image: picture.toString('base64') });
  });

  it('types the check results by the checks asked for', async () => {
    const { apiKey } = await app.account(2);
    const { c } = client(`${apiKey}`, { url: `${app.publicUrl}/` });
    const qrcode = sandboxQr({ amount: 250 });
    const r = await c.verify(qrcode, { checks: { amount: 250, duplicate: true } });
    if (r.status !== 'success') throw new Error(`expected success, got ${JSON.stringify(r)}`);
    expectTypeOf(r.checks.amount).toEqualTypeOf<AmountResult>();
    // @ts-expect-error receiverName was not requested, so it is not in the type
    void r.checks.receiverName;
    expect(r.checks).toStrictEqual({
      duplicate: { passed: true, seen: false, count: 0, firstVerifiedAt: null },
      amount: { passed: true, expected: 250, actual: 250 },
    });
    const again = await c.verify(qrcode, { checks: { duplicate: true } });
    expect(again.status === 'success' && again.checks.duplicate).toMatchObject({ passed: false, seen: true, count: 1 });
  });

  it('returns 1020–1024 as account errors with typed codes', async () => {
    const missing = await client('').c.verify(sandboxQr());
    const invalid = await client('slip_doesNotExist0000000000000000000').c.verify(sandboxQr());
    const deleted = await app.account(1);
    await app.accounts.deleteAccount(deleted.accountId);
    const gone = await client(deleted.apiKey).c.verify(sandboxQr());
    const empty = await app.account(0);
    const broke = await client(empty.apiKey).c.verify(sandboxQr());
    // TEST-NET-1 only: this test's own address is never in it.
    const elsewhere = await client((await app.accounts.createApiKey(empty.accountId, ['192.0.2.0/24'])).secret).c.verify(sandboxQr());
    expect([missing, invalid, gone, broke, elsewhere]).toStrictEqual([
      { status: 'error', kind: 'account', httpStatus: 401, code: ERROR_CODES.API_KEY_MISSING, message: 'api key is missing' },
      { status: 'error', kind: 'account', httpStatus: 401, code: 1021, message: 'invalid api key' },
      { status: 'error', kind: 'account', httpStatus: 400, code: 1022, message: 'user not found' },
      { status: 'error', kind: 'account', httpStatus: 400, code: 1023, message: 'insufficient fund', creditsRemaining: 0 },
      { status: 'error', kind: 'account', httpStatus: 403, code: ERROR_CODES.IP_NOT_ALLOWED, message: 'ip address not allowed' },
    ]);
    if (broke.status === 'error' && broke.kind === 'account') expectTypeOf(broke.code).toEqualTypeOf<1020 | 1021 | 1022 | 1023 | 1024 | 1025>();
  });

  it("returns the receiver policy's 1025 as an account error with the balance, and its checks.receiver on a success", async () => {
    const { accountId, apiKey } = await app.account(2);
    await app.admin.addReceiver('test', { accountId, promptPay: '0812345678', nameEn: 'DEEDEE' });
    await app.admin.setReceiverPolicy('test', accountId, 'require');
    const { c } = client(apiKey);
    expect(await c.verify(sandboxQr({ details: { receiverAccount: '9999999999' } }))).toStrictEqual({
      status: 'error',
      kind: 'account',
      httpStatus: 400,
      code: ERROR_CODES.RECEIVER_NOT_REGISTERED,
      message: 'receiver not registered',
      creditsRemaining: 2,
    });
    const paid = await c.verify(sandboxQr({ details: { receiverProxy: { type: 'MSISDN', digits: '0812345678' }, receiverName: 'DEEDEE CO., LTD.' } }));
    expect(paid.status === 'success' && paid.checks?.receiver).toMatchObject({ passed: true, policy: 'require', matchedBy: ['account', 'name'] });
  });

  it('a failed verification (HTTP 200 error) and a bad request are returned once, never retried', async () => {
    const { accountId, apiKey } = await app.account(1);
    const { c, retries } = client(apiKey);
    expect(await c.verify(sandboxQr({ outcome: 'error' }))).toStrictEqual({
      status: 'error',
      kind: 'verification',
      httpStatus: 200,
      message: expect.stringMatching(/verification service error/),
      creditsRemaining: 1,
    });
    const bad = await c.verify(sandboxQr(), { checks: { amount: 1.234 } });
    expect(bad).toMatchObject({ status: 'error', kind: 'invalid_request', httpStatus: 400, message: expect.stringMatching(/checks\.amount/) });
    expect(retries).toEqual([]);
    expect(await balance(accountId)).toEqual({ credits: 1, usage: 0 });
  });

  it('retries a 429 (account busy) with backoff until it goes through', async () => {
    const { accountId, apiKey } = await app.account(2);
    // Occupies the account's only in-flight slot until the server's 1.5 s timeout.
    const blocker = app.verify(apiKey, sandboxQr({ outcome: 'timeout' }));
    await eventually(async () => app.verification.inFlightCount > 0);
    const { c, retries } = client(apiKey, { retries: 8, retryDelayMs: 150 });
    const r = await c.verify(sandboxQr());
    expect(r.status).toBe('success');
    expect(retries.length).toBeGreaterThan(0);
    expect(new Set(retries)).toEqual(new Set(['HTTP 429']));
    expect((await blocker).body.message).toMatch(/timed out/);
    expect(await balance(accountId)).toEqual({ credits: 1, usage: 1 });
  });

  it('retries a 503, and returns it once retries run out', async () => {
    const { accountId, apiKey } = await app.account(2);
    const flaky = await frontServer(app, ['503', '503', 'forward']);
    servers.push(flaky.server);
    const { c, retries } = client(apiKey, { url: flaky.url });
    expect((await c.verify(sandboxQr())).status).toBe('success');
    expect(retries).toEqual(['HTTP 503', 'HTTP 503']);

    const down = await frontServer(app, ['503']);
    servers.push(down.server);
    const gaveUp = client(apiKey, { url: down.url, retries: 1 });
    expect(await gaveUp.c.verify(sandboxQr())).toStrictEqual({ status: 'error', kind: 'unavailable', httpStatus: 503, message: 'service temporarily unavailable' });
    expect(down.hits()).toBe(2);
    expect(await balance(accountId)).toEqual({ credits: 1, usage: 1 });
  });

  it('never retries when recording a verified slip failed: the charge may have committed', async () => {
    const { accountId, apiKey } = await app.account(3);
    // The commit reaches the store but its answer is lost (a connection that
    // dies right after COMMIT): charged, yet slipgate saw an error.
    const settle = app.store.settleHold.bind(app.store);
    app.store.settleHold = async (record) => {
      await settle(record);
      throw new Error('connection terminated after commit');
    };
    try {
      const { c, retries } = client(apiKey, { retries: 3 });
      const r = await c.verify(sandboxQr());
      expect(r).toMatchObject({ status: 'error', kind: 'server_error', httpStatus: 500, message: expect.stringMatching(/may have been charged; do not retry/) });
      expect(retries).toEqual([]);
    } finally {
      app.store.settleHold = settle;
    }
    expect(await balance(accountId)).toEqual({ credits: 2, usage: 1 });
  });

  it('retries when the connection is refused (the request never left)', async () => {
    const { apiKey } = await app.account(1);
    const probe = await frontServer(app, ['forward']);
    const port = (probe.server.address() as AddressInfo).port;
    await close(probe.server);
    let started: Promise<unknown> | null = null;
    const c = createClient({
      url: `http://127.0.0.1:${port}`,
      apiKey,
      retryDelayMs: 300,
      onRetry: (info) => {
        expect(info.reason).toBe('ECONNREFUSED');
        // The server comes up while the client waits to retry.
        started ??= frontServer(app, ['forward'], port).then((s) => servers.push(s.server));
      },
    });
    expect((await c.verify(sandboxQr())).status).toBe('success');
    expect(started).not.toBeNull();
  });

  it('gives up on a server that never answers: network error after every retry', async () => {
    const probe = await frontServer(app, ['forward']);
    const port = (probe.server.address() as AddressInfo).port;
    await close(probe.server);
    const retries: string[] = [];
    const c = createClient({ url: `http://127.0.0.1:${port}`, apiKey: 'slip_x', retries: 2, retryDelayMs: 10, onRetry: (r) => retries.push(r.reason) });
    const err = await c.verify(sandboxQr()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlipgateError);
    expect(err).toMatchObject({ reason: 'network', attempts: 3 });
    expect(retries).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('never retries once the request may have been received: reset or timeout', async () => {
    const { accountId, apiKey } = await app.account(2);
    const resetting = await frontServer(app, ['reset', 'forward']);
    servers.push(resetting.server);
    const reset = client(apiKey, { url: resetting.url });
    await expect(reset.c.verify(sandboxQr())).rejects.toMatchObject({ name: 'SlipgateError', reason: 'network', attempts: 1 });
    expect(reset.retries).toEqual([]);
    expect(resetting.hits()).toBe(1);

    const slow = client(apiKey, { timeoutMs: 300 });
    await expect(slow.c.verify(sandboxQr({ outcome: 'timeout' }))).rejects.toMatchObject({ reason: 'timeout', attempts: 1 });
    expect(slow.retries).toEqual([]);
    await eventually(async () => app.verification.inFlightCount === 0);
    expect(await balance(accountId)).toEqual({ credits: 2, usage: 0 });
  });

  it('stops when the caller aborts', async () => {
    const { apiKey } = await app.account(1);
    const controller = new AbortController();
    const pending = client(apiKey).c.verify(sandboxQr({ outcome: 'timeout' }), { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ reason: 'aborted' });
    await eventually(async () => app.verification.inFlightCount === 0);
  });
});
