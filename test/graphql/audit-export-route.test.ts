// GET /export/audit.csv|.jsonl on the admin listener, over real HTTP: the
// dashboard's download of the audit page's filter. Only a live admin token
// in the Authorization header opens it (every role that may read the audit
// page may download it); bad filters are JSON 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startGraphqlApp, type GraphqlTestApp } from './helpers.js';

describe('audit export route', () => {
  let app: GraphqlTestApp;
  let accountId = '';
  beforeAll(async () => {
    app = await startGraphqlApp();
    const acc = await app.account(10);
    accountId = acc.accountId;
    for (const amount of [250, 100.5, 42]) expect((await app.verify(acc.apiKey, sandboxQr({ amount }))).body.status).toBe('success');
    expect((await app.verify(acc.apiKey, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
  }, 60_000);
  afterAll(() => app?.stop());

  const get = (path: string, token?: string | null) => fetch(`${app.adminUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('answers 401 without a live token: none, unknown, revoked, or one put in the address', async () => {
    const path = `/export/audit.csv?accountId=${accountId}`;
    for (const res of [await get(path), await get(path, 'sgadm_not_a_real_token'), await get(`${path}&token=${app.tokens.admin}`)]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ status: 'error', message: 'a valid admin token is required (Authorization: Bearer sgadm_…)' });
    }
    const issued = await app.adminTokens.create({ name: 'leaver', role: 'admin', actor: 'test' });
    expect((await get(path, issued.secret)).status).toBe(200);
    await app.adminTokens.revoke(issued.token.id, 'test');
    expect((await get(path, issued.secret)).status).toBe(401);
  });

  it.each(['viewer', 'support', 'admin'] as const)('streams the filtered verifications as CSV to a %s token', async (role) => {
    const res = await get(`/export/audit.csv?type=verifications&accountId=${accountId}&from=2020-01-01T00:00:00%2B07:00`, app.tokens[role]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="slipgate-verifications-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.subarray(3)).trim().split('\r\n');
    expect(lines[0]).toMatch(/^record,time,id,account_id,/);
    expect(lines.slice(1).map((l) => l.split(',')[7]).sort()).toEqual(['100.50', '250.00', '42.00']);
    for (const line of lines.slice(1)) expect(line).toMatch(new RegExp(`^verified,\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\+07:00,[a-z]+_[^,]*,${accountId},`));
    // The sandbox's Thai names arrive intact.
    for (const line of lines.slice(1)) expect(line).toMatch(/,(นาย|นาง|นางสาว|บจก\.) [\u0E00-\u0E7F]/);
  });

  it('exports failures as JSON lines, narrowed by error kind', async () => {
    const res = await get(`/export/audit.jsonl?type=failures&accountId=${accountId}&kind=slip_not_found`, app.tokens.viewer);
    expect(res.status).toBe(200);
    const rows = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ record: 'failed', account_id: accountId, error_kind: 'slip_not_found' });
    const none = await get(`/export/audit.jsonl?type=failures&accountId=${accountId}&kind=upstream_timeout`, app.tokens.viewer);
    expect(await none.text()).toBe('');
  });

  it.each([
    ['an unknown account', '?accountId=acc_nobody', 'unknown account acc_nobody'],
    ['an inverted range', '?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z', 'the time range is inverted or empty: from 2026-12-01T07:00:00.000+07:00 is not before to 2026-11-01T07:00:00.000+07:00'],
    ['a time that is not one', '?from=yesterday', 'from: "yesterday" is not a time; use 2026-11-01 (a Bangkok day), 2026-11-01T09:30 (Bangkok) or 2026-11-01T02:30:00Z'],
    ['an unknown record type', '?type=everything', 'type must be verifications or failures'],
    ['an unknown error kind', '?type=failures&kind=oops', expect.stringMatching(/^kind must be one of missing_api_key, /)],
    ['a repeated parameter', `?accountId=a&accountId=b`, 'accountId must be one text value'],
  ])('refuses %s with a JSON 400', async (_what, query, message) => {
    const res = await get(`/export/audit.csv${query}`, app.tokens.viewer);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 'error', message });
  });
});
