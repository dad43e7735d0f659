// Secrets never reach a log line. Every line slipgate writes (at trace
// level) is captured while API keys and admin tokens go through every path
// that sees them: verifications, failed auth, admin requests, key rotation.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminTokenService } from '../../src/domain/admin/tokens.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { createLogger } from '../../src/log/log.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';

/** A whole API key or admin token, known to this test or not. */
const ANY_SECRET = /(?:slip|sgadm)_[A-Za-z0-9_-]{32}/;

describe('log redaction', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('trace', sink);
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ logger, env: { RATE_LIMIT_PER_KEY_PER_MIN: '1000', RATE_LIMIT_PER_IP_PER_MIN: '1000' } });
  });
  afterAll(() => app.stop());

  it('never writes an API key or admin token', async () => {
    const { accountId, apiKey } = await app.account(5);
    const admin = await new AdminTokenService(app.store).create({ name: 'log test', role: 'admin', actor: 'test' });
    const wrongKey = generateApiKey().key;
    const wrongToken = `sgadm_${'y'.repeat(32)}`;
    const verifyUrl = app.publicUrl + VERIFY_PATH;

    expect((await app.verify(apiKey, sandboxQr())).body.status).toBe('success');
    expect((await app.verify(apiKey, 'not a slip')).body.status).toBe('error');
    expect((await app.verify(wrongKey, sandboxQr())).body.code).toBe(1021);
    expect((await app.post('{"qrcode":', { 'x-api-key': apiKey })).status).toBe(400);
    expect((await app.post('x', { 'x-api-key': apiKey, 'content-type': 'text/plain' })).status).toBe(415);
    // Keys where they do not belong: a query string, a wrong method, an unknown route.
    const misplaced = { 'x-api-key': apiKey, authorization: `Bearer ${apiKey}` };
    expect((await fetch(`${verifyUrl}?api_key=${apiKey}`, { method: 'POST', headers: { ...misplaced, 'content-type': 'application/json' }, body: '{}' })).status).toBe(400);
    expect((await fetch(verifyUrl, { headers: misplaced })).status).toBe(405);
    expect((await fetch(`${app.publicUrl}/${apiKey}`, { headers: misplaced })).status).toBe(404);

    // Admin side: readiness, GraphQL with a good, a wrong and no token.
    const graphql = (token: string | null, query: string, variables = {}) =>
      fetch(`${app.adminUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
    expect((await fetch(`${app.adminUrl}/readyz`, { headers: { authorization: `Bearer ${admin.secret}` } })).status).toBe(200);
    const issued = await graphql(admin.secret, 'mutation ($id: ID!) { createApiKey(accountId: $id) { __typename } }', { id: accountId });
    expect(issued.status).toBe(200);
    // A money change through GraphQL: its INFO line names the token, never its secret.
    const toppedUp = await graphql(admin.secret, 'mutation ($id: ID!) { topUpCredits(accountId: $id, credits: 3, reason: "log test", idempotencyKey: "log-1") { __typename } }', {
      id: accountId,
    });
    expect(toppedUp.status).toBe(200);
    expect((await graphql(wrongToken, '{ __typename }')).status).toBe(401);
    expect((await graphql(null, '{ __typename }')).status).toBe(401);

    // Rotation through the admin actions (as GraphQL, the dashboard and the CLI do): a new key in, the old one revoked and refused.
    const rotated = await app.admin.createApiKey('admin:test', accountId, 'rotation');
    const [old] = (await app.store.listApiKeys(accountId)).filter((k) => apiKey.startsWith(k.prefix));
    await app.admin.revokeApiKey('admin:test', old!.id, 'rotation');
    expect((await app.verify(rotated.secret, sandboxQr())).body.status).toBe('success');
    expect((await app.verify(apiKey, sandboxQr())).body.code).toBe(1021);

    // Secrets handed to the logger by mistake, under the names the redaction covers.
    logger.info(
      { apiKey, token: admin.secret, secret: rotated.secret, headers: { 'x-api-key': apiKey, authorization: `Bearer ${admin.secret}` }, req: { headers: { 'x-api-key': apiKey } } },
      'secrets by mistake',
    );
    // An access line is written when its response is done, which may be just
    // after the client has read it: wait for all 14 requests above to be logged.
    // The verify route's line is its `verification` line; the others are `request` lines.
    const accessLines = () => lines.filter((l) => ['request', 'verification'].includes(JSON.parse(l).msg)).length;
    await eventually(async () => accessLines() >= 15);
    expect(accessLines()).toBe(15);
    // The change lines this test caused are there to be checked below.
    const changes = lines.map((l) => JSON.parse(l).msg);
    expect(changes).toEqual(expect.arrayContaining(['API key created', 'credits topped up', 'API key revoked']));
    expect(lines.find((l) => l.includes('secrets by mistake'))).toContain('[redacted]');
    const secrets = [apiKey, wrongKey, rotated.secret, admin.secret, wrongToken];
    for (const line of lines) {
      for (const secret of secrets) expect(line).not.toContain(secret.slice(-24));
      expect(line).not.toMatch(ANY_SECRET);
    }
  });
});
