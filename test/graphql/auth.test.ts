// Who may reach the GraphQL API at all: a live admin token on the admin
// listener; never the public port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminTokenService } from '../../src/domain/admin/tokens.js';
import { dataOf, errorCodes, postGraphql, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

describe('GraphQL admin API: authentication and transport', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp();
  });
  afterAll(() => app?.stop());

  const ME = '{ me { id name role prefix } }';

  it('answers 401 JSON without a token, before GraphQL runs', async () => {
    const res = await app.gql({ token: null }, ME);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body).toMatchObject({ status: 'error', message: expect.stringContaining('admin token') });
    expect(res.body.data).toBeUndefined();
  });

  it('answers 401 to unknown, malformed and non-bearer credentials', async () => {
    for (const token of ['sgadm_notARealTokenAtAll0000000000000', 'slip_' + 'x'.repeat(32), app.tokens.admin.slice(0, -1)]) {
      expect((await app.gql({ token }, ME)).status).toBe(401);
    }
    const basic = await fetch(`${app.adminUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${app.tokens.admin}` },
      body: JSON.stringify({ query: ME }),
    });
    expect(basic.status).toBe(401);
  });

  it('answers 401 to a revoked token', async () => {
    const service = new AdminTokenService(app.store);
    const { token, secret } = await service.create({ name: 'leaving', role: 'admin', actor: 'test' });
    expect(dataOf(await app.gql({ token: secret }, ME)).me).toMatchObject({ id: token.id, name: 'leaving', role: 'ADMIN' });
    expect(await service.revoke(token.id, 'test')).toBe(true);
    expect((await app.gql({ token: secret }, ME)).status).toBe(401);
  });

  it('tells each token who it is, without secrets', async () => {
    for (const [role, token] of Object.entries(app.tokens)) {
      const me = dataOf(await app.gql({ token }, ME)).me;
      expect(me).toMatchObject({ name: `${role}-token`, role: role.toUpperCase() });
      expect(token.startsWith(me.prefix)).toBe(true);
      expect(me.prefix.length).toBeLessThan(token.length);
    }
  });

  it('is not on the public port', async () => {
    const res = await postGraphql(app.publicUrl, app.tokens.admin, ME);
    expect(res.status).toBe(404);
    const get = await fetch(`${app.publicUrl}/graphql?query=${encodeURIComponent(ME)}`, { headers: { authorization: `Bearer ${app.tokens.admin}` } });
    expect(get.status).toBe(404);
  });

  it('refuses bodies over 64 KiB with 413 JSON', async () => {
    const query = `{ me { id } } # ${'x'.repeat(70 * 1024)}`;
    const res = await app.gql('admin', query);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 'error' });
  });

  it('answers GET queries too (read-only), but never mutations over GET', async () => {
    const get = (query: string) =>
      fetch(`${app.adminUrl}/graphql?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${app.tokens.viewer}`, accept: 'application/json' } });
    const ok = await get(ME);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.me.role).toBe('VIEWER');
    const mutation = await get('mutation { deleteAccount(id: "acc_x") { id } }');
    expect(mutation.status).toBe(405);
  });

  it('allows introspection to the ADMIN role only', async () => {
    const query = '{ __schema { queryType { name } } }';
    expect(dataOf(await app.gql('admin', query)).__schema.queryType.name).toBe('Query');
    for (const role of ['viewer', 'support'] as const) {
      const res = await app.gql(role, query);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors[0].message).toMatch(/introspection/i);
    }
    // __typename is not introspection of the schema and stays available.
    expect(dataOf(await app.gql('viewer', '{ __typename }')).__typename).toBe('Query');
  });

  it('serves GraphiQL to the ADMIN role only', async () => {
    const page = (token: string) => fetch(`${app.adminUrl}/graphql`, { headers: { authorization: `Bearer ${token}`, accept: 'text/html' } });
    const admin = await page(app.tokens.admin);
    expect(admin.status).toBe(200);
    const html = await admin.text();
    expect(html).toContain('<html');
    // Everything it needs comes from slipgate itself, not from a CDN.
    expect(html).not.toMatch(/\b(src|href)=["']?https?:/);
    // Only the page's own inline script may run (by its hash), and nothing may frame it.
    const policy = admin.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(admin.headers.get('x-frame-options')).toBe('DENY');
    const viewer = await page(app.tokens.viewer);
    expect(await viewer.text()).not.toContain('<html');
    const anonymous = await fetch(`${app.adminUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(anonymous.status).toBe(401);
  });

  it('does not suggest field names to probing clients', async () => {
    const res = await app.gql('viewer', '{ acount { id } }');
    expect(res.body.errors[0].message).not.toMatch(/did you mean/i);
    expect(errorCodes(res)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});
