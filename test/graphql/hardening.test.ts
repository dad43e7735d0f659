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
    dataOf(await app.gql('viewer', '{ accounts(first: 5) { nodes { recentActivity { ... on VerifyTransaction { account { keys { prefix } } } } } } }'));
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

  it('rejects expensive queries by cost before any resolver runs', async () => {
    const wide = 'id name credits heldCredits usage createdAt keys { id prefix createdAt } ledger { id delta reason actor }';
    const fields = Array.from({ length: ARMOR_LIMITS.maxAliases }, (_, i) => `a${i}: accounts(first: 100) { nodes { ${wide} recentActivity { ... on VerifyTransaction { account { ${wide} } } } } }`).join(' ');
    const res = await app.gql('admin', `{ ${fields} }`);
    expect(res.body.data).toBeNull();
    expect(errorCodes(res)).toContain('QUERY_TOO_COMPLEX');
    expect(res.body.errors[0].message).toMatch(/cost \d+ is over the limit of 5000/);
  });

  it('costs page sizes given as variables, and nested pages multiply', async () => {
    const query = `query Nested($n: Int) { accounts(first: $n) { nodes { id recentActivity(first: $n) { ... on VerifyTransaction { id amount } } } } }`;
    await app.account(1);
    // 100 accounts x 100 records each: ~20,000 store rows from one request.
    const big = await app.gql('viewer', query, { n: 100 });
    expect(big.body.data).toBeNull();
    expect(errorCodes(big)).toEqual(['QUERY_TOO_COMPLEX']);
    // Leaving `first` out costs the default page size, not nothing.
    const defaults = 'accounts { nodes { id recentActivity { ... on VerifyTransaction { id amount transactionId sendingBank receivingBank upstream latencyMs createdAt } } } }';
    const aliased = await app.gql('viewer', `{ a: ${defaults} b: ${defaults} c: ${defaults} }`);
    expect(errorCodes(aliased)).toContain('QUERY_TOO_COMPLEX');
    // The same shapes with small pages are fine.
    expect(dataOf(await app.gql('viewer', query, { n: 5 })).accounts.nodes.length).toBeGreaterThan(0);
    dataOf(await app.gql('viewer', `{ ${defaults} }`));
  });

  it('refuses a too-costly mutation without changing anything', async () => {
    const acct = await app.account(7);
    const res = await app.gql(
      'admin',
      `mutation($id: ID!, $n: Int) { topUpCredits(accountId: $id, credits: 5, reason: "cost test", idempotencyKey: "cost-1") {
         account { ledger(first: $n) { id } recentActivity(first: $n) { ... on RequestError { id account { recentActivity(first: $n) { ... on RequestError { id } } } } } } } }`,
      { id: acct.accountId, n: 100 },
    );
    expect(errorCodes(res)).toEqual(['QUERY_TOO_COMPLEX']);
    const after = dataOf(await app.gql('viewer', `{ account(id: "${acct.accountId}") { credits ledger { id } } }`)).account;
    expect(after).toEqual({ credits: 7, ledger: [expect.anything()] });
  });

  it('caps the usage range and costs it by days', async () => {
    const { accountId } = await app.account(1);
    const year = 'from: "2025-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z"';
    const tooLong = await app.gql('viewer', `{ usage(accountId: "${accountId}", from: "2020-01-01T00:00:00Z", to: "2022-01-01T00:00:00Z") { day } }`);
    expect(errorCodes(tooLong)).toEqual(['BAD_USER_INPUT']);
    expect(tooLong.body.errors[0].message).toMatch(/at most 400 days apart$/);
    const everyoneForAYear = await app.gql('viewer', `{ usage(${year}) { day } }`);
    expect(errorCodes(everyoneForAYear)).toEqual(['BAD_USER_INPUT']);
    expect(everyoneForAYear.body.errors[0].message).toMatch(/at most 92 days apart without accountId/);
    // A year of one account, each day row with the account's history: too costly.
    const heavy = await app.gql('viewer', `{ usage(accountId: "${accountId}", ${year}) { day account { recentActivity { ... on VerifyTransaction { id } } } } }`);
    expect(errorCodes(heavy)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(dataOf(await app.gql('viewer', `{ usage(accountId: "${accountId}", ${year}) { day successes failuresByKind { kind count } } }`)).usage).toEqual([]);
  });
});

describe('GraphQL admin API: error masking', () => {
  let app: GraphqlTestApp;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    app = await startGraphqlApp({ logs });
  });
  afterAll(() => app?.stop());

  it('hides a database failure behind a generic error and logs the real one, without any token', async () => {
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

    // What was logged about these failures (and the requests before them) names no token.
    expect(logs.length).toBeGreaterThan(0);
    const text = JSON.stringify(logs);
    for (const token of Object.values(app.tokens)) expect(text).not.toContain(token);
  });
});
