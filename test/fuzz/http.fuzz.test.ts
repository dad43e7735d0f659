// Hostile callers against a real running slipgate (real HTTP, real SQLite):
// random bytes, deep and prototype-polluting JSON, non-string qrcodes, header
// injection, thousands of headers, duplicated x-api-key, slowloris. Every
// answer must be well-formed JSON with the right status; nothing is charged;
// the process neither crashes nor leaks an unhandled rejection.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { httpRequest, rawRequest, type RawAnswer } from '../helpers/raw-http.js';

const RUNS = { numRuns: 200 };
const MAX_BODY_BYTES = 4096;
const CREDITS = 100;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const ACCOUNT_CODES = [1020, 1021, 1022, 1023];

type Expected = { status: number; message?: string | RegExp };

/** What the spec and slipgate's documented choices say a verify body deserves (valid key). */
function expectedForBody(contentType: string, bytes: Buffer): Expected {
  if (bytes.length > MAX_BODY_BYTES) return { status: 413 };
  if (!JSON_TYPE.test(contentType)) return { status: 415, message: 'Content-Type must be application/json' };
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { status: 400, message: 'request body is not valid JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { status: 400, message: 'request body must be a JSON object' };
  const qrcode = Object.hasOwn(body, 'qrcode') ? (body as { qrcode: unknown }).qrcode : undefined;
  if (qrcode === undefined || qrcode === null) return { status: 400, message: 'qrcode is required' };
  if (typeof qrcode !== 'string') return { status: 400, message: 'qrcode must be a string' };
  if (qrcode.trim() === '') return { status: 400, message: 'qrcode must not be empty' };
  // A spec failure: HTTP 200, status error, no code (fuzzed strings are never valid slips).
  return { status: 200, message: /^invalid slip QR code: / };
}

/** A well-formed JSON error answer. */
function expectJsonError(status: number, contentType: string | null | undefined, text: string): any {
  expect(contentType ?? '', `content-type of a ${status}`).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ status: 'error', message: expect.any(String) });
  if ('code' in body) expect(ACCOUNT_CODES).toContain(body.code);
  return body;
}

function expectRawJsonError(answer: RawAnswer, statuses: number[]): any {
  expect(answer.status, answer.raw.slice(0, 300)).not.toBeNull();
  expect(statuses, answer.raw.slice(0, 300)).toContain(answer.status);
  return expectJsonError(answer.status!, answer.headers['content-type'], answer.body);
}

describe('request handler under hostile input', () => {
  let app: TestApp;
  let accountId: string;
  let apiKey: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    // Every case here sends refused keys from one address, far past the refused-auth brake (tested in test/abuse/refusal-flood.test.ts).
    app = await startApp({ env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES), HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', AUTH_FAILURES_PER_IP_PER_MIN: '0' } });
    ({ accountId, apiKey } = await app.account(CREDITS));
  });

  afterAll(async () => {
    try {
      // Still alive and still answering, nothing charged, nothing polluted.
      const alive = await app.verify(apiKey, 'not a slip');
      expect(alive.status).toBe(200);
      expect(alive.body.status).toBe('error');
      const account = (await app.store.getAccount(accountId))!;
      expect({ credits: account.credits, held: account.held, usage: account.usage }).toEqual({ credits: CREDITS, held: 0, usage: 0 });
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
      expect(({} as Record<string, unknown>).qrcode).toBeUndefined();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
      await app.stop();
    }
  });

  const post = async (body: Buffer | string, headers: Record<string, string>) => {
    const res = await fetch(app.publicUrl + VERIFY_PATH, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
    return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
  };

  const check = async (contentType: string, bytes: Buffer) => {
    const res = await post(bytes, { 'x-api-key': apiKey, 'content-type': contentType });
    const want = expectedForBody(contentType.trim(), bytes);
    expect(res.status).toBe(want.status);
    const body = expectJsonError(res.status, res.contentType, res.text);
    if (want.message !== undefined) expect(body.message).toMatch(want.message);
    if (res.status === 200) expect(body).not.toHaveProperty('code');
  };

  it('answers random bytes with any content type', async () => {
    const contentType = fc.oneof(
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'text/plain', 'application/x-www-form-urlencoded', 'APPLICATION/JSON'),
      fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/),
    );
    await fc.assert(
      fc.asyncProperty(contentType, fc.uint8Array({ maxLength: MAX_BODY_BYTES + 200 }), async (type, bytes) => check(type, Buffer.from(bytes))),
      RUNS,
    );
  });

  it('answers arbitrary and deeply nested JSON', async () => {
    const nested = fc.tuple(fc.integer({ min: 1, max: 1500 }), fc.constantFrom('[', '{"qrcode":')).map(([depth, open]) => {
      const close = open === '[' ? ']' : '}';
      return open.repeat(depth) + '1' + close.repeat(depth);
    });
    const json = fc.oneof(fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? 'null'), nested);
    await fc.assert(
      fc.asyncProperty(json, async (text) => check('application/json', Buffer.from(text, 'utf8'))),
      RUNS,
    );
  });

  it('ignores __proto__ and constructor keys (no pollution, no confusion)', async () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'prototype', 'qrcode', 'toString', 'hasOwnProperty', 'valueOf');
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ qrcode: fc.string() }), fc.record({ prototype: fc.record({ qrcode: fc.string() }) }));
    // Written by hand: an object literal cannot hold an own "__proto__" key to stringify.
    const body = fc.array(fc.tuple(key, value), { maxLength: 6 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`);
    await fc.assert(
      fc.asyncProperty(body, async (text) => check('application/json', Buffer.from(text, 'utf8'))),
      RUNS,
    );
    const res = await post('{"__proto__":{"qrcode":"x"},"constructor":{"prototype":{"qrcode":"x"}}}', { 'x-api-key': apiKey, 'content-type': 'application/json' });
    expect({ status: res.status, body: JSON.parse(res.text) }).toEqual({ status: 400, body: { status: 'error', message: 'qrcode is required' } });
  });

  it('rejects numbers, arrays, objects and booleans as qrcode', async () => {
    const notString = fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    );
    await fc.assert(
      fc.asyncProperty(notString, async (qrcode) => {
        const res = await post(JSON.stringify({ qrcode }), { 'x-api-key': apiKey, 'content-type': 'application/json' });
        expect({ status: res.status, body: JSON.parse(res.text) }).toEqual({ status: 400, body: { status: 'error', message: 'qrcode must be a string' } });
      }),
      RUNS,
    );
  });

  it('survives header injection and odd header lines on a raw socket', async () => {
    const body = JSON.stringify({ qrcode: 'not a slip' });
    const headers = ['host: slipgate.test', 'connection: close', `x-api-key: ${apiKey}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`];
    const known: [string[], number][] = [
      [['x-a: a\rb'], 400],
      [['x-a: a\u0000b'], 400],
      [['bad name: x'], 400],
      [['expect: teapot'], 417],
      [['upgrade: websocket', 'connection: upgrade'], 200],
      [['transfer-encoding: chunked'], 400],
    ];
    for (const [extra, status] of known) {
      const answer = await rawRequest(app.publicUrl, httpRequest({ headers: [...headers, ...extra], body }));
      expectRawJsonError(answer, [status]);
    }
    const name = fc.oneof(
      fc.constantFrom('x-api-key', 'X-API-KEY', 'x-api-key ', 'content-type', 'expect', 'upgrade', 'connection', 'x-request-id', 'x-forwarded-for', 'host', 'transfer-encoding'),
      fc.stringMatching(/^[\x21-\x7e]{1,20}$/),
    );
    // Control characters included: CR, LF and NUL are the injection attempts.
    const value = fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 60 }), fc.constantFrom('x\r\nx-api-key: injected', 'a\nb', 'a\rb', 'a\u0000b', ' folded\r\n continued', apiKey));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 12 }), async (extra) => {
        const lines = [...headers, ...extra.map(([n, v]) => `${n}: ${v}`)];
        const answer = await rawRequest(app.publicUrl, httpRequest({ headers: lines, body }), { timeoutMs: 8_000 });
        expectRawJsonError(answer, [200, 400, 401, 408, 413, 415, 417, 431]);
      }),
      RUNS,
    );
  });

  it('answers any method and path with JSON', async () => {
    const method = fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT', 'FOO', 'POST');
    const path = fc.oneof(fc.constant(VERIFY_PATH), fc.stringMatching(/^\/[\x21-\x7e]{0,60}$/), fc.constantFrom('*', 'http://evil.test/api/v1/verify', '/api/v1/verify?x=1', '/API/V1/VERIFY'));
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        const answer = await rawRequest(app.publicUrl, httpRequest({ method: m, path: p, headers: ['host: slipgate.test', 'connection: close', 'content-length: 0'] }));
        expectRawJsonError(answer, [400, 401, 404, 405, 415]);
      }),
      { numRuns: 100 },
    );
  });

  it('answers many headers, or too many, with JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3000 }), async (count) => {
        const body = JSON.stringify({ qrcode: 'not a slip' });
        const filler = Array.from({ length: count }, (_, i) => `x-filler-${i}: ${'v'.repeat(i % 7)}`);
        const headers = ['host: slipgate.test', 'connection: close', `x-api-key: ${apiKey}`, 'content-type: application/json', `content-length: ${body.length}`, ...filler];
        const answer = await rawRequest(app.publicUrl, httpRequest({ headers, body }));
        const parsed = expectRawJsonError(answer, [200, 431]);
        if (answer.status === 200) expect(parsed.message).toMatch(/^invalid slip QR code/);
      }),
      { numRuns: 30 },
    );
  });

  it('never lets duplicated x-api-key headers authenticate', async () => {
    const wrong = 'slip_' + 'x'.repeat(32);
    const pairs: [string, string][] = [
      [apiKey, apiKey],
      [apiKey, wrong],
      [wrong, apiKey],
      ['', apiKey],
      [apiKey, ''],
    ];
    for (const [first, second] of pairs) {
      for (const names of [['x-api-key', 'x-api-key'], ['x-api-key', 'X-Api-Key']]) {
        // A valid slip: had either key been taken, a credit would be gone.
        const body = JSON.stringify({ qrcode: sandboxQr() });
        const headers = ['host: slipgate.test', 'connection: close', `${names[0]}: ${first}`, `${names[1]}: ${second}`, 'content-type: application/json', `content-length: ${body.length}`];
        const answer = await rawRequest(app.publicUrl, httpRequest({ headers, body }));
        expect(expectRawJsonError(answer, [401])).toEqual({ status: 'error', code: 1021, message: 'invalid api key' });
      }
    }
  });

  it('cuts off slowloris headers and bodies with a JSON 408', { timeout: 30_000 }, async () => {
    // Headers that never end: one more line every 300 ms.
    const slowHead = ['POST /api/v1/verify HTTP/1.1\r\nhost: slipgate.test\r\n', ...Array.from({ length: 40 }, (_, i) => `x-slow-${i}: 1\r\n`)];
    const head = await rawRequest(app.publicUrl, '', { chunks: slowHead, gapMs: 300, timeoutMs: 10_000 });
    expect(expectRawJsonError(head, [408])).toEqual({ status: 'error', message: 'request was not received in time' });

    // A valid, paid-for request whose body trickles in a byte at a time.
    const body = JSON.stringify({ qrcode: sandboxQr() });
    const start = httpRequest({ headers: ['host: slipgate.test', `x-api-key: ${apiKey}`, 'content-type: application/json', `content-length: ${body.length}`] });
    const slowBody = await rawRequest(app.publicUrl, '', { chunks: [start, ...body.split('')], gapMs: 200, timeoutMs: 10_000 });
    expect(expectRawJsonError(slowBody, [408])).toEqual({ status: 'error', message: 'request was not received in time' });
  });
});
