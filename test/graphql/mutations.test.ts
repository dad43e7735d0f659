// The mutations that move money or change access, on every SQL engine:
// idempotent top-ups under concurrency, corrections, keys, deletion, and the
// admin event each change leaves behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const TOP_UP = `mutation ($accountId: ID!, $credits: Int!, $reason: String!, $key: String!) {
  topUpCredits(accountId: $accountId, credits: $credits, reason: $reason, idempotencyKey: $key) {
    created
    entry { id kind delta reason actor idempotencyKey }
    account { id credits }
  }
}`;

describe.each(testEngines())('GraphQL mutations on %s', (engine) => {
  let app: GraphqlTestApp;
  beforeAll(async () => {
    const url = await engine.databaseUrl();
    app = await startGraphqlApp({ databaseUrl: engine.name === 'postgres' ? `${url}?pool_max=4` : url });
  });
  afterAll(async () => {
    await app?.stop();
    await engine.dispose();
  });

  const credits = async (accountId: string) => (await app.store.getAccount(accountId))!.credits;
  const topUp = (as: 'support' | 'admin' | 'viewer', vars: { accountId: string; credits: number; key: string; reason?: string }) =>
    app.gql(as, TOP_UP, { reason: 'paid invoice', ...vars });

  it('createAccount returns the API key once, and it works on the public route', async () => {
    const res = dataOf(
      await app.gql('admin', 'mutation { createAccount(name: "  Kaffee Shop ", credits: 3, reason: "signed contract") { account { id name credits } apiKey { secret key { id prefix } } } }'),
    ).createAccount;
    expect(res.account).toMatchObject({ name: 'Kaffee Shop', credits: 3 });
    expect(res.apiKey.secret).toMatch(/^slip_/);
    expect(res.apiKey.secret.startsWith(res.apiKey.key.prefix)).toBe(true);
    const verified = await app.verify(res.apiKey.secret, sandboxQr());
    expect(verified.body.status).toBe('success');
    expect(await credits(res.account.id)).toBe(2);

    const events = (await app.store.listAdminEvents({ targetId: res.account.id, limit: 10 })).items;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'createAccount', reason: 'signed contract', actor: expect.stringMatching(/^admin:adm_\w+:admin-token$/) });
    expect(JSON.stringify(events)).not.toContain(res.apiKey.secret);
  });

  it('topUpCredits adds credits once per idempotency key and records who and why', async () => {
    const { accountId } = await app.account(1);
    const first = dataOf(await topUp('support', { accountId, credits: 10, key: `inv-${accountId}` })).topUpCredits;
    expect(first).toMatchObject({ created: true, entry: { kind: 'TOP_UP', delta: 10, reason: 'paid invoice' }, account: { credits: 11 } });
    expect(first.entry.actor).toMatch(/^admin:adm_\w+:support-token$/);

    const again = dataOf(await topUp('support', { accountId, credits: 10, key: `inv-${accountId}`, reason: 'clicked twice' })).topUpCredits;
    expect(again).toMatchObject({ created: false, entry: { id: first.entry.id, reason: 'paid invoice' }, account: { credits: 11 } });
    expect(await credits(accountId)).toBe(11);

    const events = (await app.store.listAdminEvents({ targetId: accountId, limit: 10 })).items;
    expect(events.map((e) => e.action)).toEqual(['topUpCredits']);
    expect(events[0]).toMatchObject({ reason: 'paid invoice', details: { delta: 10, ledgerEntryId: first.entry.id } });
  });

  it('20 identical top-ups sent at once grant the credits exactly once', async () => {
    const { accountId } = await app.account(0);
    const key = `double-click-${accountId}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => topUp('support', { accountId, credits: 7, key })));
    const results = answers.map((r) => dataOf(r).topUpCredits);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    expect(await credits(accountId)).toBe(7);
    const ledger = await app.store.listLedger(accountId, 100);
    expect(ledger.filter((e) => e.idempotencyKey === key)).toHaveLength(1);
    expect((await app.store.auditTotals(accountId))!.ledgerTotal).toBe(7);
    expect((await app.store.listAdminEvents({ targetId: accountId, limit: 100 })).items).toHaveLength(1);
  });

  it('a replay records the admin event that a failed first attempt could not, and only once', async () => {
    const { accountId } = await app.account(0);
    const key = `gap-${accountId}`;
    const insert = app.store.insertAdminEvent.bind(app.store);
    // The credits commit, then the event write fails (the store blinked).
    app.store.insertAdminEvent = async () => {
      throw new Error('connection reset while writing the admin event');
    };
    try {
      expect(errorCodes(await topUp('support', { accountId, credits: 4, key }))).toEqual(['INTERNAL_SERVER_ERROR']);
    } finally {
      app.store.insertAdminEvent = insert;
    }
    expect(await credits(accountId)).toBe(4);
    expect((await app.store.listAdminEvents({ targetId: accountId, limit: 10 })).items).toHaveLength(0);

    // The caller retries with the same key (as another admin, even): nothing more is added, the trail is complete.
    for (const as of ['admin', 'support'] as const) {
      expect(dataOf(await topUp(as, { accountId, credits: 4, key })).topUpCredits.created).toBe(false);
    }
    expect(await credits(accountId)).toBe(4);
    const events = (await app.store.listAdminEvents({ targetId: accountId, limit: 10 })).items;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'topUpCredits', actor: expect.stringMatching(/:support-token$/), reason: 'paid invoice', details: { delta: 4, idempotencyKey: key } });
  });

  it('refuses to reuse an idempotency key for another amount, account or kind', async () => {
    const a = await app.account(0);
    const b = await app.account(0);
    const key = `reuse-${a.accountId}`;
    dataOf(await topUp('support', { accountId: a.accountId, credits: 5, key }));
    for (const other of [{ accountId: a.accountId, credits: 6 }, { accountId: b.accountId, credits: 5 }]) {
      const res = await topUp('support', { ...other, key });
      expect(errorCodes(res)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
      expect(res.body.errors[0].message).toMatch(/idempotency key was already used/);
    }
    // The same account and amount as an adjustment is another change too.
    const adjusted = await app.gql('admin', `mutation { adjustCredits(accountId: "${a.accountId}", delta: 5, reason: "fix", idempotencyKey: "${key}") { created } }`);
    expect(errorCodes(adjusted)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
    expect(await credits(a.accountId)).toBe(5);
    expect(await credits(b.accountId)).toBe(0);
  });

  it('explains bad top-ups with BAD_USER_INPUT or NOT_FOUND and changes nothing', async () => {
    const { accountId } = await app.account(2);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ credits: 0 }, 'BAD_USER_INPUT', /credits must be a whole number/],
      [{ credits: -5 }, 'BAD_USER_INPUT', /credits must be a whole number/],
      [{ reason: '   ' }, 'BAD_USER_INPUT', /reason must be/],
      [{ key: '' }, 'BAD_USER_INPUT', /idempotency key must be/],
      [{ accountId: 'acc_missing' }, 'NOT_FOUND', /account not found/],
    ];
    for (const [override, code, message] of cases) {
      const res = await topUp('support', { accountId, credits: 3, key: `bad-${Math.random()}`, ...override } as never);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.body.errors[0].message).toMatch(message);
      expect(res.text).not.toMatch(/ at |stack|SQLITE|postgres/i);
    }
    expect(await credits(accountId)).toBe(2);
  });

  it('adjustCredits corrects both ways, needs a reason and never overdraws', async () => {
    const { accountId } = await app.account(5);
    const adjust = (delta: number, reason: string) =>
      app.gql('admin', 'mutation ($id: ID!, $d: Int!, $r: String!) { adjustCredits(accountId: $id, delta: $d, reason: $r) { created entry { kind delta } account { credits } } }', {
        id: accountId,
        d: delta,
        r: reason,
      });
    expect(dataOf(await adjust(-2, 'refund of duplicate charge')).adjustCredits).toMatchObject({ created: true, entry: { kind: 'ADJUSTMENT', delta: -2 }, account: { credits: 3 } });
    expect(errorCodes(await adjust(-4, 'too much'))).toEqual(['INSUFFICIENT_CREDITS']);
    expect(errorCodes(await adjust(1, ''))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await adjust(0, 'nothing'))).toEqual(['BAD_USER_INPUT']);
    const missingReason = await app.gql('admin', `mutation { adjustCredits(accountId: "${accountId}", delta: 1) { created } }`);
    expect(missingReason.body.errors[0].message).toMatch(/reason/);
    expect(await credits(accountId)).toBe(3);
    const events = (await app.store.listAdminEvents({ targetId: accountId, limit: 10 })).items;
    expect(events.map((e) => [e.action, e.reason])).toEqual([['adjustCredits', 'refund of duplicate charge']]);
  });

  it('createApiKey and revokeApiKey: the revoked key answers 1021 at once', async () => {
    const { accountId, apiKey } = await app.account(5);
    expect((await app.verify(apiKey, sandboxQr())).body.status).toBe('success'); // now cached by this process

    const issued = dataOf(await app.gql('support', `mutation { createApiKey(accountId: "${accountId}", reason: "second shop") { secret key { id accountId prefix revokedAt } } }`)).createApiKey;
    expect(issued.key).toMatchObject({ accountId, revokedAt: null });
    expect((await app.verify(issued.secret, sandboxQr())).body.status).toBe('success');

    const keys = await app.store.listApiKeys(accountId);
    const original = keys.find((k) => k.id !== issued.key.id)!;
    const revoked = dataOf(await app.gql('support', `mutation { revokeApiKey(keyId: "${original.id}", reason: "leaked") { id revokedAt } }`)).revokeApiKey;
    expect(revoked.revokedAt).not.toBeNull();

    const refused = await app.verify(apiKey, sandboxQr());
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 'error', code: 1021 });
    expect((await app.verify(issued.secret, sandboxQr())).body.status).toBe('success');

    expect(errorCodes(await app.gql('support', 'mutation { revokeApiKey(keyId: "key_missing") { id } }'))).toEqual(['NOT_FOUND']);
    const actions = (await app.store.listAdminEvents({ limit: 100 })).items.filter((e) => e.targetId === accountId || e.targetId === original.id);
    expect(actions.map((e) => e.action).sort()).toEqual(['createApiKey', 'revokeApiKey']);
  });

  it('renameAccount: support renames (trimmed), a viewer may not, a blank name or a deleted account changes nothing', async () => {
    const { accountId } = await app.account(0);
    const RENAME = 'mutation($id: ID!, $name: String!) { renameAccount(id: $id, name: $name, reason: "shop asked") { id name } }';
    expect(errorCodes(await app.gql('viewer', RENAME, { id: accountId, name: 'Viewer Shop' }))).toEqual(['FORBIDDEN']);
    expect(dataOf(await app.gql('support', RENAME, { id: accountId, name: '  ร้านกาแฟ Kaffee  ' })).renameAccount).toEqual({ id: accountId, name: 'ร้านกาแฟ Kaffee' });
    expect(errorCodes(await app.gql('support', RENAME, { id: accountId, name: '   ' }))).toEqual(['BAD_USER_INPUT']);
    expect((await app.store.getAccount(accountId))?.name).toBe('ร้านกาแฟ Kaffee');
    const events = (await app.store.listAdminEvents({ targetId: accountId, limit: 10 })).items.filter((e) => e.action === 'renameAccount');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ reason: 'shop asked', actor: expect.stringContaining('support') });
    await app.gql('admin', `mutation { deleteAccount(id: "${accountId}") { id } }`);
    expect(errorCodes(await app.gql('support', RENAME, { id: accountId, name: 'Too late' }))).toEqual(['NOT_FOUND']);
  });

  it('deleteAccount: keys answer 1022 at once, history stays readable', async () => {
    const { accountId, apiKey } = await app.account(5);
    expect((await app.verify(apiKey, sandboxQr())).body.status).toBe('success');
    const deleted = dataOf(await app.gql('admin', `mutation { deleteAccount(id: "${accountId}", reason: "closed") { id deletedAt } }`)).deleteAccount;
    expect(deleted.deletedAt).not.toBeNull();
    const refused = await app.verify(apiKey, sandboxQr());
    expect(refused.body).toMatchObject({ status: 'error', code: 1022 });
    const still = dataOf(await app.gql('viewer', `{ account(id: "${accountId}") { deletedAt usage recentActivity { __typename } } }`)).account;
    expect(still.usage).toBe(1);
    expect(still.recentActivity.map((a: { __typename: string }) => a.__typename)).toContain('VerifyTransaction');
    expect(errorCodes(await app.gql('admin', `mutation { deleteAccount(id: "${accountId}") { id } }`))).toEqual(['NOT_FOUND']);
  });
});
