// Account queries: search, stable cursor pages, and the detail view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { clockPast } from '../helpers/clock.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const PAGE = `query ($search: String, $first: Int, $after: String) {
  accounts(search: $search, first: $first, after: $after) { nodes { id name } pageInfo { hasNextPage endCursor } }
}`;

describe('GraphQL admin API: accounts', () => {
  let app: GraphqlTestApp;
  const created: { id: string; name: string }[] = [];
  beforeAll(async () => {
    app = await startGraphqlApp();
    for (let i = 0; i < 7; i++) {
      const name = i % 2 === 0 ? `Noodle Bar ${i}` : `Coffee_50% ${i}`;
      const { account } = await app.accounts.createAccount({ name, credits: 1, actor: 'test' });
      created.push({ id: account.id, name });
    }
  });
  afterAll(() => app?.stop());

  const allPages = async (search: string | null, first: number) => {
    const seen: { id: string; name: string }[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 20; guard++) {
      const page: any = dataOf(await app.gql('viewer', PAGE, { search, first, after })).accounts;
      expect(page.nodes.length).toBeLessThanOrEqual(first);
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) {
        expect(page.pageInfo.endCursor).toBeNull();
        return seen;
      }
      after = page.pageInfo.endCursor;
    }
    throw new Error('paging did not end');
  };

  it('pages through every account exactly once, in one stable order', async () => {
    const oneGo = await allPages(null, 100);
    expect(oneGo.map((a) => a.id).sort()).toEqual(created.map((a) => a.id).sort());
    expect(await allPages(null, 3)).toEqual(oneGo);
    expect(await allPages(null, 1)).toEqual(oneGo);
  });

  it('keeps later pages unchanged while new accounts arrive', async () => {
    const before = await allPages(null, 100);
    const first = dataOf(await app.gql('viewer', PAGE, { first: 2 })).accounts;
    const late = await app.accounts.createAccount({ name: 'Late Arrival', credits: 0, actor: 'test' });
    const second = dataOf(await app.gql('viewer', PAGE, { first: 2, after: first.pageInfo.endCursor })).accounts;
    expect(second.nodes).toEqual(before.slice(2, 4));
    expect((await allPages(null, 100))[0]!.id).toBe(late.account.id);
  });

  it('searches names case-insensitively, with LIKE wildcards taken literally', async () => {
    expect((await allPages('noodle', 2)).map((a) => a.name).sort()).toEqual(['Noodle Bar 0', 'Noodle Bar 2', 'Noodle Bar 4', 'Noodle Bar 6']);
    expect((await allPages('_50%', 10)).map((a) => a.name).sort()).toEqual(['Coffee_50% 1', 'Coffee_50% 3', 'Coffee_50% 5']);
    expect(await allPages('nothing like this', 10)).toEqual([]);
    expect((await allPages(created[2]!.id, 10)).map((a) => a.id)).toEqual([created[2]!.id]);
  });

  it('rejects page sizes outside 1..100 and foreign cursors', async () => {
    for (const first of [0, 101, -1]) expect(errorCodes(await app.gql('viewer', PAGE, { first }))).toEqual(['BAD_USER_INPUT']);
    const res = await app.gql('viewer', PAGE, { after: 'not-a-cursor' });
    expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
    expect(res.body.errors[0].message).toMatch(/invalid cursor/);
  });

  it('shows an account with balance, holds, usage, keys (prefix only), ledger and activity', async () => {
    const { accountId, apiKey } = await app.account(4);
    await app.accounts.topUp({ accountId, credits: 6, reason: 'invoice 12', actor: 'cli:somchai', idempotencyKey: 'inv-12' });
    expect((await app.verify(apiKey, sandboxQr({ amount: 99.5 }))).body.status).toBe('success');
    await clockPast(Date.now()); // distinct timestamps: "newest first" is then well defined
    expect((await app.verify(apiKey, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    const extra = await app.accounts.createApiKey(accountId);
    await app.accounts.revokeApiKey(extra.key.id);

    const account = dataOf(
      await app.gql(
        'viewer',
        `query ($id: ID!) { account(id: $id) {
          id name credits heldCredits usage createdAt deletedAt
          keys { id prefix createdAt lastUsedAt revokedAt }
          ledger { kind delta reason actor idempotencyKey }
          recentActivity { __typename ... on VerifyTransaction { amount transactionId } ... on RequestError { kind message } }
        } }`,
        { id: accountId },
      ),
    ).account;
    expect(account).toMatchObject({ id: accountId, name: 'Test Shop', credits: 9, heldCredits: 0, usage: 1, deletedAt: null });
    expect(account.keys).toHaveLength(2);
    expect(apiKey.startsWith(account.keys[1].prefix)).toBe(true);
    expect(account.keys[1].lastUsedAt).not.toBeNull();
    expect(account.keys[0]).toMatchObject({ id: extra.key.id, revokedAt: expect.any(String) });
    // Both entries may share a millisecond, so only the set is fixed here.
    expect(account.ledger).toHaveLength(2);
    expect(account.ledger).toEqual(
      expect.arrayContaining([
        { kind: 'TOP_UP', delta: 6, reason: 'invoice 12', actor: 'cli:somchai', idempotencyKey: 'inv-12' },
        { kind: 'INITIAL', delta: 4, reason: 'initial credits', actor: 'test', idempotencyKey: null },
      ]),
    );
    expect(account.recentActivity).toEqual([
      { __typename: 'RequestError', kind: 'SLIP_NOT_FOUND', message: expect.stringMatching(/slip not found/) },
      { __typename: 'VerifyTransaction', amount: 99.5, transactionId: expect.any(String) },
    ]);
    expect(JSON.stringify(account)).not.toContain(apiKey);
  });

  it('answers NOT_FOUND for an unknown account', async () => {
    const res = await app.gql('viewer', '{ account(id: "acc_nope") { id } }');
    expect(errorCodes(res)).toEqual(['NOT_FOUND']);
    expect(res.body.data).toEqual({ account: null });
  });
});
