// x-credits-remaining on every answer about a live account, and API keys
// locked to IP ranges (1024), set through GraphQL and the CLI, on every engine.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from '../graphql/helpers.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const REFUSED = { status: 'error', code: 1024, message: 'ip address not allowed' };

describe.each(testEngines())('credits header and IP-locked keys on %s', (engine) => {
  let app: GraphqlTestApp;
  let databaseUrl: string;
  /** The public listener as reached over IPv4 and over IPv6 (it listens on '::'). */
  const from: Record<'v4' | 'v6', string> = { v4: '', v6: '' };

  beforeAll(async () => {
    databaseUrl = await engine.databaseUrl();
    // No key cache: the CLI is another process, so its changes must be read at once.
    app = await startGraphqlApp({ databaseUrl, env: { HOST: '::', API_KEY_CACHE_TTL_MS: '0', UPSTREAM_TIMEOUT_MS: '400' } });
    const port = new URL(app.publicUrl).port;
    from.v4 = `http://127.0.0.1:${port}`;
    from.v6 = `http://[::1]:${port}`;
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  const verify = async (origin: 'v4' | 'v6', apiKey: string | undefined, body: unknown, extra: Record<string, string> = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    const res = await fetch(`${from[origin]}/api/v1/verify`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, credits: res.headers.get('x-credits-remaining'), body: (await res.json()) as Record<string, unknown> };
  };
  const stored = async (accountId: string) => String((await app.store.getAccount(accountId))!.credits);
  const slipgate = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('reports the balance after each success, after a failure and on 1023', async () => {
    const { accountId, apiKey } = await app.account(4);
    for (let i = 0; i < 3; i++) {
      const ok = await verify('v4', apiKey, { qrcode: sandboxQr() });
      expect(ok.body.status).toBe('success');
      expect(ok.credits).toBe(String(3 - i));
      expect(ok.credits).toBe(await stored(accountId));
    }
    const notFound = await verify('v6', apiKey, { qrcode: sandboxQr({ outcome: 'not-found' }) });
    expect(notFound.body).toMatchObject({ status: 'error', message: expect.stringMatching(/slip not found/) });
    expect(notFound.credits).toBe('1');
    expect(notFound.credits).toBe(await stored(accountId));
    const badQr = await verify('v4', apiKey, { qrcode: 'not a slip' });
    expect(badQr.credits).toBe(await stored(accountId));
    const badBody = await verify('v4', apiKey, '{');
    expect(badBody.status).toBe(400);
    expect(badBody.credits).toBe('1');

    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).credits).toBe('0');
    const broke = await verify('v4', apiKey, { qrcode: sandboxQr() });
    expect(broke.body).toMatchObject({ code: 1023 });
    expect(broke.credits).toBe('0');
    expect(broke.credits).toBe(await stored(accountId));
  });

  it('sends no balance on 1020, 1021 and 1022', async () => {
    const { accountId, apiKey } = await app.account(2);
    const missing = await verify('v4', undefined, { qrcode: sandboxQr() });
    const invalid = await verify('v4', 'slip_not-a-real-key-at-all-000000000', { qrcode: sandboxQr() });
    await app.accounts.deleteAccount(accountId);
    const deleted = await verify('v4', apiKey, { qrcode: sandboxQr() });
    expect([missing.body.code, invalid.body.code, deleted.body.code]).toEqual([1020, 1021, 1022]);
    expect([missing.credits, invalid.credits, deleted.credits]).toEqual([null, null, null]);
  });

  it('GraphQL: a key locked to 127.0.0.1 refuses ::1 (1024, free), and a new list applies at once', async () => {
    const { accountId } = await app.account(5);
    const created = dataOf(
      await app.gql('support', 'mutation($a: ID!, $ips: [String!]) { createApiKey(accountId: $a, allowedIps: $ips) { secret key { id allowedIps } } }', {
        a: accountId,
        ips: ['127.0.0.1'],
      }),
    ).createApiKey;
    expect(created.key.allowedIps).toEqual(['127.0.0.1/32']);
    const apiKey = created.secret as string;

    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');
    // Without TRUST_PROXY_HOPS a forwarded address is not believed.
    const refused = await verify('v6', apiKey, { qrcode: sandboxQr() }, { 'x-forwarded-for': '127.0.0.1' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(REFUSED);
    expect(refused.credits).toBeNull();
    // Before the body and the account: a broken body is still 1024.
    expect((await verify('v6', apiKey, '{')).body).toEqual(REFUSED);
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 4, usage: 1, held: 0 });
    const errors = (await app.store.listRequestErrors({ accountId, limit: 10 })).items;
    expect(errors.map((e) => e.kind)).toEqual(['ip_not_allowed', 'ip_not_allowed']);
    expect(errors[0]!.keyId).toBe(created.key.id);

    const set = 'mutation($k: ID!, $ips: [String!]!) { setApiKeyAllowedIps(keyId: $k, allowedIps: $ips) { id allowedIps } }';
    expect(dataOf(await app.gql('support', set, { k: created.key.id, ips: ['::1/128'] })).setApiKeyAllowedIps.allowedIps).toEqual(['::1/128']);
    expect((await verify('v6', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');
    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).body).toEqual(REFUSED);

    expect(dataOf(await app.gql('admin', set, { k: created.key.id, ips: [] })).setApiKeyAllowedIps.allowedIps).toEqual([]);
    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');

    const bad = await app.gql('support', set, { k: created.key.id, ips: ['10.0.0.0/8', '10.0.0.300/32'] });
    expect(errorCodes(bad)).toEqual(['BAD_USER_INPUT']);
    expect(bad.body.errors[0].message).toContain('10.0.0.300/32');
    const badCreate = await app.gql('support', 'mutation($a: ID!) { createApiKey(accountId: $a, allowedIps: ["::1/129"]) { secret } }', { a: accountId });
    expect(errorCodes(badCreate)).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await app.gql('viewer', set, { k: created.key.id, ips: [] }))).not.toEqual([]);

    const events = dataOf(await app.gql('admin', '{ adminEvents(targetId: "' + created.key.id + '") { nodes { action actor } } }')).adminEvents.nodes;
    expect(events.map((e: any) => e.action)).toEqual(['setApiKeyAllowedIps', 'setApiKeyAllowedIps']);
  });

  it('CLI: keys create --allow-ip and keys allow-ip lock and unlock a key for a running server', async () => {
    const { accountId } = await app.account(5);
    const made = await slipgate('keys', 'create', accountId, '--allow-ip', '::1/128', '--allow-ip', '192.0.2.0/24', '--json');
    expect(made.code).toBe(0);
    const { keyId, apiKey, allowedIps } = JSON.parse(made.stdout) as { keyId: string; apiKey: string; allowedIps: string[] };
    expect(allowedIps).toEqual(['::1/128', '192.0.2.0/24']);

    expect((await verify('v6', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');
    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).body).toEqual(REFUSED);
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 4, usage: 1 });

    expect((await slipgate('keys', 'allow-ip', keyId, '127.0.0.0/8')).code).toBe(0);
    expect((await verify('v4', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');
    expect((await verify('v6', apiKey, { qrcode: sandboxQr() })).body).toEqual(REFUSED);

    expect((await app.store.getApiKey(keyId))?.allowedIps).toEqual(['127.0.0.0/8']);

    expect((await slipgate('keys', 'allow-ip', keyId, '--any')).code).toBe(0);
    expect((await verify('v6', apiKey, { qrcode: sandboxQr() })).body.status).toBe('success');
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 2, usage: 3, held: 0 });
  }, 120_000);
});

describe('IP allow-lists behind a proxy, and the key cache', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    // A long TTL: only eviction can make a change visible at once.
    app = await startGraphqlApp({ env: { API_KEY_CACHE_TTL_MS: '300000', TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(() => app?.stop());

  it('with TRUST_PROXY_HOPS the client is the address the proxy forwarded', async () => {
    const { accountId } = await app.account(3);
    const { secret } = await app.accounts.createApiKey(accountId, ['203.0.113.7']);
    const key = { 'x-api-key': secret };
    expect((await app.post({ qrcode: sandboxQr() }, { ...key, 'x-forwarded-for': '203.0.113.7' })).body.status).toBe('success');
    expect((await app.post({ qrcode: sandboxQr() }, { ...key, 'x-forwarded-for': '203.0.113.7, 198.51.100.1' })).body).toEqual(REFUSED);
    expect((await app.post({ qrcode: sandboxQr() }, key)).body).toEqual(REFUSED);
    expect(await app.store.getAccount(accountId)).toMatchObject({ credits: 2, usage: 1 });
  });

  it('a change made through GraphQL evicts the cached key in this process', async () => {
    const { accountId, apiKey } = await app.account(3);
    const [key] = await app.store.listApiKeys(accountId);
    const proxied = { 'x-forwarded-for': '198.51.100.1' };
    expect((await app.post({ qrcode: sandboxQr() }, { 'x-api-key': apiKey, ...proxied })).body.status).toBe('success');
    const set = 'mutation($k: ID!, $ips: [String!]!) { setApiKeyAllowedIps(keyId: $k, allowedIps: $ips) { id } }';
    dataOf(await app.gql('support', set, { k: key!.id, ips: ['192.0.2.0/24'] }));
    expect((await app.post({ qrcode: sandboxQr() }, { 'x-api-key': apiKey, ...proxied })).body).toEqual(REFUSED);
    dataOf(await app.gql('support', set, { k: key!.id, ips: ['198.51.100.0/24'] }));
    expect((await app.post({ qrcode: sandboxQr() }, { 'x-api-key': apiKey, ...proxied })).body.status).toBe('success');
  });
});
