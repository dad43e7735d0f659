// The shipped reverse-proxy recipe (deploy/nginx/slipgate.conf) with a real
// nginx, unprivileged, in front of a real slipgate: TLS with a certificate
// made here, the client's address through the proxy (TRUST_PROXY_HOPS=1) for
// keys locked to IP ranges, x-request-id both ways, the body limit aligned
// with MAX_IMAGE_BYTES, and the admin listener out of reach.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';
import { createLogger } from '../../src/log/log.js';
import { callThrough, certificateAtShippedPath, freePort, nginxPath, plainHttp, RECIPES, startNginx, withCertificates, writeMainConf, type CallOptions, type Nginx } from './nginx.js';
import { giveToUnprivileged, runsAsRoot } from './unprivileged.js';

const REFUSED = { status: 'error', code: 1024, message: 'ip address not allowed' };
const INVALID = { status: 'error', code: 1021, message: 'invalid api key' };
const { MAX_IMAGE_BYTES } = loadConfig({});

const run = promisify(execFile);

it("the single-host recipe passes nginx -t as shipped, with a certificate at certbot's path under a scratch root", async () => {
  const dir = tempDir('slipgate-nginx-t-');
  try {
    const [, single] = RECIPES;
    writeFileSync(join(dir.path, 'slipgate.conf'), withCertificates(single!, readFileSync(single!.path, 'utf8'), certificateAtShippedPath(single!, dir.path)));
    writeMainConf(dir.path);
    const { stderr } = await run(nginxPath(), ['-t', '-p', dir.path, '-c', join(dir.path, 'nginx.conf'), '-e', 'stderr']);
    expect(stderr).toContain('test is successful');
  } finally {
    dir.remove();
  }
});

describe.each(RECIPES)('nginx recipe in front of slipgate: $name', (recipe) => {
  const dir = tempDir('slipgate-nginx-');
  let app: TestApp;
  let nginx: Nginx;
  const logs: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });

  beforeAll(async () => {
    app = await startApp({ env: { TRUST_PROXY_HOPS: '1' }, logger: createLogger('info', logStream) });
    // The second instance is down (a rolling restart): nginx must pass every
    // request to the one that is up, none may fail.
    const down = `127.0.0.1:${await freePort()}`;
    nginx = await startNginx(dir.path, [new URL(app.publicUrl).host, down], recipe);
  });
  afterAll(async () => {
    await nginx?.stop();
    await app?.stop();
    dir.remove();
  });

  const call = (opts: CallOptions) => callThrough(nginx, opts);
  const verify = (apiKey: string, from: string, headers: Record<string, string> = {}) =>
    call({ from, headers: { 'x-api-key': apiKey, ...headers }, body: JSON.stringify({ qrcode: sandboxQr() }) });

  // Only the recipe with a port-80 server (a test, not a skipped one, for the other).
  if (recipe.certbot) it("answers certbot's HTTP-01 challenge from the webroot on port 80 and sends everything else there to https", async () => {
    const { host } = recipe.certbot!;
    // What certbot --webroot writes: <webroot>/.well-known/acme-challenge/<token>.
    const token = 'uX4k-Qz_9r8acme';
    const challenges = join(nginx.webroot!, '.well-known', 'acme-challenge');
    mkdirSync(challenges, { recursive: true });
    writeFileSync(join(challenges, token), `${token}.key-authorization`);
    giveToUnprivileged(nginx.webroot!);
    const challenge = await plainHttp(nginx, { host, path: `/.well-known/acme-challenge/${token}` });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toBe(`${token}.key-authorization`);
    expect((await plainHttp(nginx, { host, path: '/.well-known/acme-challenge/unknown' })).status).toBe(404);

    for (const [method, path] of [['GET', '/'], ['POST', '/api/v1/verify'], ['GET', '/api/v1/payment-requests?limit=1'], ['GET', '/.well-known/other']] as const) {
      const redirect = await plainHttp(nginx, { host, path, method });
      expect(redirect.status, path).toBe(301);
      expect(redirect.headers.location, path).toBe(`https://${host}${path}`);
    }
    // Nothing on port 80 reaches slipgate: a key sent there is never served.
    const { apiKey, accountId } = await app.account(1);
    await plainHttp(nginx, { host, path: '/api/v1/verify', method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ qrcode: sandboxQr() }) });
    expect((await app.store.getAccount(accountId))!.credits).toBe(1);
  });

  it('proxies the public routes over https: verify and the payment requests', async () => {
    const { apiKey } = await app.account(1);
    expect((await verify(apiKey, '127.0.0.1')).body).toMatchObject({ status: 'success' });
    // slipgate's own answer (its request id, its JSON), not nginx's.
    const lookup = await call({ path: '/api/v1/payment-requests?reference=order-404', method: 'GET', headers: { 'x-api-key': apiKey } });
    expect(lookup.status).toBe(404);
    expect(lookup.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lookup.body).toMatchObject({ status: 'error' });
  });

  it('nginx runs unprivileged', () => {
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${nginx.pid}/status`, 'utf8'))![1]);
    expect(uid).not.toBe(0);
    if (runsAsRoot) expect(uid).toBe(65534);
  });

  it('serves TLS with its certificate only to clients that trust it, and does not say its version', async () => {
    await expect(call({ trust: false, body: '{}' })).rejects.toThrow(/self[- ]signed/);
    const { apiKey } = await app.account(2);
    const ok = await verify(apiKey, '127.0.0.1');
    expect(ok.status).toBe(200);
    expect(ok.headers.server).toBe('nginx');
    const tooLarge = await call({ body: 'x'.repeat(5 * 1024 * 1024) });
    expect(JSON.stringify(tooLarge)).not.toMatch(/nginx\/\d/);
    expect(ok.body).toMatchObject({ status: 'success', message: 'slip verified' });
  });

  it('every request reaches the instance that is up while the other is down', async () => {
    const { accountId, apiKey } = await app.account(6);
    for (let i = 0; i < 6; i++) expect((await verify(apiKey, '127.0.0.1')).body.status).toBe('success');
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 0, usage: 6 });
  });

  it('a key locked to IP ranges sees the client through the proxy, and a forged X-Forwarded-For does not unlock it', async () => {
    const { accountId } = await app.account(5);
    const only2 = await app.accounts.createApiKey(accountId, ['127.0.0.2']);
    const only1 = await app.accounts.createApiKey(accountId, ['127.0.0.1/32']);

    const fromAllowed = await verify(only2.secret, '127.0.0.2');
    expect(fromAllowed.body).toMatchObject({ status: 'success' });
    expect(fromAllowed.headers['x-credits-remaining']).toBe('4');

    const fromElsewhere = await verify(only2.secret, '127.0.0.1');
    expect(fromElsewhere.status).toBe(403);
    expect(fromElsewhere.body).toEqual(REFUSED);
    // The record and the log line say which address was judged and where it came from; the answer does not.
    const requestId = fromElsewhere.headers['x-request-id'] as string;
    const [record] = (await app.store.listRequestErrors({ requestId, limit: 1 })).items;
    expect(record).toMatchObject({ kind: 'ip_not_allowed', message: 'ip address not allowed: saw 127.0.0.1 (X-Forwarded-For with TRUST_PROXY_HOPS=1, from the proxy at 127.0.0.1)' });
    expect(logs.find((l) => l.requestId === requestId)).toMatchObject({ code: 1024, clientIp: '127.0.0.1', clientIpFrom: 'X-Forwarded-For with TRUST_PROXY_HOPS=1, from the proxy at 127.0.0.1' });

    const forged = await verify(only2.secret, '127.0.0.1', { 'x-forwarded-for': '127.0.0.2' });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual(REFUSED);
    const forgedChain = await verify(only2.secret, '127.0.0.1', { 'x-forwarded-for': '127.0.0.2, 127.0.0.2' });
    expect(forgedChain.body).toEqual(REFUSED);

    // nginx itself connects from 127.0.0.1: slipgate must judge the client, not the proxy.
    const proxyAddress = await verify(only1.secret, '127.0.0.2');
    expect(proxyAddress.status).toBe(403);
    expect(proxyAddress.body).toEqual(REFUSED);
    expect((await verify(only1.secret, '127.0.0.1')).body).toMatchObject({ status: 'success' });

    expect((await app.store.getAccount(accountId))!.credits).toBe(3);
  });

  it("passes the caller's x-request-id through, and slipgate's own when none was sent", async () => {
    const { apiKey } = await app.account(2);
    const given = await verify(apiKey, '127.0.0.1', { 'x-request-id': 'ticket-4711.retry-1' });
    expect(given.body.status).toBe('success');
    expect(given.headers['x-request-id']).toBe('ticket-4711.retry-1');
    const records = await app.store.listVerifyTransactions({ requestId: 'ticket-4711.retry-1', limit: 10 });
    expect(records.items).toHaveLength(1);

    const made = await verify(apiKey, '127.0.0.1');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a body over MAX_IMAGE_BYTES at the proxy with 413 and passes one of exactly that size', async () => {
    const { accountId, apiKey } = await app.account(1);
    const imageBody = (bytes: number) => {
      const frame = '{"image":""}';
      return `{"image":"${'A'.repeat(bytes - frame.length)}"}`;
    };
    const badRequests = async () => {
      const text = await (await fetch(`${app.adminUrl}/metrics`)).text();
      return text
        .split('\n')
        .filter((line) => line.startsWith('slipgate_verifications_total{') && line.includes('outcome="bad_request"'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    };

    const atLimit = await call({ headers: { 'x-api-key': apiKey }, body: imageBody(MAX_IMAGE_BYTES) });
    // It reached slipgate, which read it as a (broken) picture: 400, not 413.
    expect(atLimit.status).toBe(400);
    expect(atLimit.body).toMatchObject({ status: 'error' });
    expect(atLimit.body.message).not.toMatch(/larger than/);
    expect(atLimit.headers['x-request-id']).toBeDefined();
    const seen = await badRequests();
    expect(seen).toBeGreaterThan(0);

    const over = await call({ headers: { 'x-api-key': apiKey }, body: imageBody(MAX_IMAGE_BYTES + 1) });
    expect(over.status).toBe(413);
    expect(over.headers['content-type']).toMatch(/^application\/json/);
    expect(over.body).toEqual({ status: 'error', message: `request body is larger than ${MAX_IMAGE_BYTES} bytes` });
    // slipgate never saw it: nothing more counted, nothing charged.
    expect(await badRequests()).toBe(seen);
    expect((await app.store.getAccount(accountId))!.credits).toBe(1);
  });

  it("brakes refused keys per client address behind the proxy (slipgate's AUTH_FAILURES_PER_IP_PER_MIN), not the merchant's address", async () => {
    const { AUTH_FAILURES_PER_IP_PER_MIN: limit } = loadConfig({});
    const { accountId, apiKey } = await app.account(3);
    // Each with a forged X-Forwarded-For of its own: were it believed, no address would ever reach the limit.
    const answers = [];
    // The minute may turn once on the way: then the count starts again, so at most 2 × limit answers come before the 429.
    for (let i = 0; i <= 2 * limit; i++) {
      const answer = await verify(generateApiKey().key, '127.0.0.3', { 'x-forwarded-for': `198.51.100.${i + 1}` });
      answers.push(answer);
      if (answer.status === 429) break;
    }
    const braked = answers.at(-1)!;
    expect(braked.status).toBe(429);
    expect(braked.body).toEqual({ status: 'error', message: 'too many failed authentications from this address; retry later' });
    expect(Number(braked.headers['retry-after'])).toBeGreaterThan(0);
    const refused = answers.slice(0, -1);
    expect(refused.length).toBeGreaterThanOrEqual(limit);
    for (const a of refused) expect(a.body).toEqual(INVALID);
    expect((await verify(apiKey, '127.0.0.1')).body).toMatchObject({ status: 'success' });
    expect((await app.store.getAccount(accountId))!.credits).toBe(2);
  });

  it("limits requests per client address in nginx itself (limit_req), answering slipgate's JSON", async () => {
    const own = tempDir('slipgate-nginx-limit-');
    const limited = await startNginx(own.path, [new URL(app.publicUrl).host, `127.0.0.1:${await freePort()}`]);
    try {
      // The shipped zone, key and answer; a rate slow enough that no request drains the bucket during the test.
      await limited.reload((conf) => {
        expect(conf).toMatch(/limit_req zone=slipgate_per_address burst=\d+ nodelay;/);
        return conf.replace(/rate=\d+r\/s;/, 'rate=1r/m;').replace(/ burst=\d+ /, ' burst=2 ');
      });
      const { apiKey } = await app.account(10);
      const through = (from: string) => callThrough(limited, { from, headers: { 'x-api-key': apiKey }, body: JSON.stringify({ qrcode: sandboxQr() }) });
      const first = [await through('127.0.0.4'), await through('127.0.0.4'), await through('127.0.0.4')];
      expect(first.map((a) => a.body.status)).toEqual(['success', 'success', 'success']);
      const refused = await through('127.0.0.4');
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toEqual({ status: 'error', message: 'too many requests from this address; retry later' });
      // Another address has a bucket of its own.
      expect((await through('127.0.0.5')).body.status).toBe('success');
    } finally {
      await limited.stop();
      own.remove();
    }
  });

  it("does not expose the admin listener; the go-live challenge passes through it", async () => {
    expect((await fetch(`${app.adminUrl}/healthz`)).status).toBe(200);
    const challenged = await call({ headers: { 'x-slipgate-challenge': '0123456789abcdefXYZ' }, body: '{}' });
    expect(challenged.status).toBe(401);
    expect(challenged.body).toEqual({ status: 'error', code: 1020, message: 'api key is missing' });
    expect(challenged.headers['x-slipgate-forwarded-for']).toBe('1');
    for (const path of ['/healthz', '/readyz', '/metrics', '/graphql', '/']) {
      const answer = await call({ path, method: 'GET' });
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toMatchObject({ status: 'error' });
    }
  });

  it('answers JSON, status kept, when no instance answers', async () => {
    const alone = tempDir('slipgate-nginx-down-');
    const nobody = await startNginx(alone.path, [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`], recipe);
    try {
      const { apiKey } = await app.account(1);
      const answer = await callThrough(nobody, { headers: { 'x-api-key': apiKey, 'x-request-id': 'order-17' }, body: JSON.stringify({ qrcode: sandboxQr() }) });
      expect(answer.status).toBe(502);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['x-request-id']).toBe('order-17');
      expect(answer.body).toEqual({
        status: 'error',
        message: 'slipgate did not answer; the verification may have been charged: look it up by x-request-id before retrying',
      });
    } finally {
      await nobody.stop();
      alone.remove();
    }
  });
});
