// Each role's boundary: a refused mutation answers FORBIDDEN and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminRole } from '../../src/domain/types.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

describe('GraphQL admin API: roles', () => {
  let app: GraphqlTestApp;
  let accountId: string;
  let keyId: string;
  beforeAll(async () => {
    app = await startGraphqlApp();
    ({ accountId } = await app.account(10));
    keyId = (await app.store.listApiKeys(accountId))[0]!.id;
  });
  afterAll(() => app?.stop());

  /** What the store holds about the account: any change here would be a leak through the role check. */
  const snapshot = async () => ({
    account: await app.store.getAccount(accountId),
    keys: await app.store.listApiKeys(accountId),
    ledger: await app.store.listLedger(accountId, 100),
    accounts: (await app.store.listAccounts({ limit: 100 })).items.length,
    events: (await app.store.listAdminEvents({ limit: 100 })).items.length,
  });

  const MUTATIONS: Record<string, { query: () => string; needs: AdminRole }> = {
    topUpCredits: { needs: 'support', query: () => `mutation { topUpCredits(accountId: "${accountId}", credits: 5, reason: "r", idempotencyKey: "k-${Math.random()}") { created } }` },
    createApiKey: { needs: 'support', query: () => `mutation { createApiKey(accountId: "${accountId}") { secret } }` },
    setApiKeyAllowedIps: { needs: 'support', query: () => `mutation { setApiKeyAllowedIps(keyId: "${keyId}", allowedIps: ["127.0.0.0/8", "::1"]) { id } }` },
    revokeApiKey: { needs: 'support', query: () => `mutation { revokeApiKey(keyId: "${keyId}") { id } }` },
    createAccount: { needs: 'admin', query: () => 'mutation { createAccount(name: "New", credits: 1) { account { id } } }' },
    adjustCredits: { needs: 'admin', query: () => `mutation { adjustCredits(accountId: "${accountId}", delta: 100, reason: "r") { created } }` },
    deleteAccount: { needs: 'admin', query: () => `mutation { deleteAccount(id: "${accountId}") { id } }` },
  };

  it('a viewer cannot top up: FORBIDDEN, balance unchanged', async () => {
    const before = await snapshot();
    const res = await app.gql('viewer', MUTATIONS.topUpCredits!.query());
    expect(res.status).toBe(200);
    expect(errorCodes(res)).toEqual(['FORBIDDEN']);
    expect(res.body.errors[0].message).toBe('your admin role may not do this');
    expect(res.body.data).toBeNull();
    expect(await snapshot()).toEqual(before);
    expect(before.account!.credits).toBe(10);
  });

  for (const [name, { needs }] of Object.entries(MUTATIONS)) {
    const refused: AdminRole[] = needs === 'admin' ? ['viewer', 'support'] : ['viewer'];
    it(`${name} needs ${needs}: ${refused.join(' and ')} get FORBIDDEN and nothing changes`, async () => {
      for (const role of refused) {
        const before = await snapshot();
        expect(errorCodes(await app.gql(role, MUTATIONS[name]!.query()))).toEqual(['FORBIDDEN']);
        expect(await snapshot()).toEqual(before);
      }
    });
  }

  it('support may top up, create, lock to IP ranges and revoke keys', async () => {
    for (const name of ['topUpCredits', 'createApiKey', 'setApiKeyAllowedIps', 'revokeApiKey']) dataOf(await app.gql('support', MUTATIONS[name]!.query()));
    expect((await app.store.getAccount(accountId))!.credits).toBe(15);
  });

  it('admin may do everything', async () => {
    for (const name of ['topUpCredits', 'createApiKey', 'createAccount', 'adjustCredits', 'deleteAccount']) dataOf(await app.gql('admin', MUTATIONS[name]!.query()));
    expect((await app.store.getAccount(accountId))!).toMatchObject({ credits: 120, deletedAt: expect.any(Date) });
  });

  it('every role reads everything except secrets', async () => {
    const query = `{ me { role } accounts(first: 5) { nodes { id keys { prefix } } } account(id: "${accountId}") { credits ledger { delta actor } adminEvents { action } }
      verifyTransactions { nodes { id } } requestErrors { nodes { id } } usage { day } upstreams { name } adminEvents { nodes { action } } }`;
    for (const role of ['viewer', 'support', 'admin'] as const) {
      const data = dataOf(await app.gql(role, query));
      expect(data.me.role).toBe(role.toUpperCase());
      expect(data.account.ledger.length).toBeGreaterThan(0);
      expect(data.adminEvents.nodes.length).toBeGreaterThan(0);
    }
  });
});
