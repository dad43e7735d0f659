// Limits on operations and what clients learn when something breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMOR_LIMITS } from '../../src/graphql/armor.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

/** account → recentActivity → account … : the cycle a hostile query would use. */
function deepQuery(levels: number): string {
  let inner = 'id';
  for (let i = 0; i < levels; i++) inner = `account { recentActivity { ... on VerifyTransaction { ${inner} } } }`;
  return `{ verifyTransactions { nodes { ${inner} } } }`;
}

describe('GraphQL admin API: operation limits', () => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    app = await startGraphqlApp();
  });
  afterAll(() => app?.stop());

  it('accepts realistic nested queries', async () => {
    dataOf(await app.gql('viewer', deepQuery(1)));
    dataOf(await app.gql('viewer', '{ accounts { nodes { recentActivity { ... on VerifyTransaction { account { keys { prefix } } } } } } }'));
  });

  it('rejects queries nested deeper than the limit before running them', async () => {
    const res = await app.gql('admin', deepQuery(4));
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/depth/i);
  });

  it('rejects alias fan-out beyond the limit', async () => {
    const ok = Array.from({ length: ARMOR_LIMITS.maxAliases }, (_, i) => `m${i}: me { id }`).join(' ');
    dataOf(await app.gql('viewer', `{ ${ok} }`));
    const tooMany = Array.from({ length: ARMOR_LIMITS.maxAliases + 1 }, (_, i) => `m${i}: me { id }`).join(' ');
    const res = await app.gql('viewer', `{ ${tooMany} }`);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/aliases/i);
  });

  it('rejects documents with too many tokens', async () => {
    const res = await app.gql('viewer', `{ me { ${'id '.repeat(ARMOR_LIMITS.maxTokens)} } }`);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/token/i);
  });

  it('rejects expensive queries by cost', async () => {
    const wide = 'id name credits heldCredits usage createdAt keys { id prefix createdAt } ledger { id delta reason actor }';
    const fields = Array.from({ length: ARMOR_LIMITS.maxAliases }, (_, i) => `a${i}: accounts(first: 100) { nodes { ${wide} recentActivity { ... on VerifyTransaction { account { ${wide} } } } } }`).join(' ');
    const res = await app.gql('admin', `{ ${fields} }`);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toMatch(/cost/i);
  });
});

describe('GraphQL admin API: error masking', () => {
  let app: GraphqlTestApp;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    app = await startGraphqlApp({ logs });
  });
  afterAll(() => app?.stop());

  it('hides a database failure behind a generic error and logs the real one', async () => {
    await app.account(1);
    const store = app.store;
    const listAccounts = store.listAccounts.bind(store);
    // The store goes away after the token was checked: the driver itself fails.
    store.listAccounts = async (q) => {
      await store.close();
      return listAccounts(q);
    };
    const res = await app.gql('viewer', '{ accounts { nodes { id } } }');
    expect(res.body.errors).toEqual([{ message: 'Unexpected error.', locations: expect.any(Array), path: ['accounts'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(res.text).not.toMatch(/database|connection|sqlite|stack|\.ts:|\bat /i);
    const logged = logs.find((l) => l.msg === 'GraphQL request failed inside slipgate') as { err?: { message?: string; stack?: string }; path?: string } | undefined;
    expect(logged?.path).toBe('accounts');
    expect(logged?.err?.message).toMatch(/database connection is not open/i);
    expect(logged?.err?.stack).toContain('listAccounts');

    // With the store gone, even the token check fails: a plain 500, no details.
    const closed = await app.gql('viewer', '{ me { id } }');
    expect(closed.status).toBe(500);
    expect(closed.body).toEqual({ status: 'error', message: 'internal error' });
  });

  it('never writes a token into the log', () => {
    const text = JSON.stringify(logs);
    for (const token of Object.values(app.tokens)) expect(text).not.toContain(token);
  });
});
