// Audit log, usage and upstream health after real verifications through the
// public route, with the upstream pool built from UPSTREAMS as in production.
import { parseSlipQr } from '../../src/domain/verify/slip-qr.js';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { clockPast } from '../helpers/clock.js';
import { dataOf, errorCodes, startGraphqlApp, type GraphqlTestApp } from './helpers.js';

const UPSTREAMS = JSON.stringify([
  { name: 'sbx-a', provider: 'sandbox', weight: 1 },
  { name: 'sbx-b', provider: 'sandbox', weight: 1 },
]);

const VT = `query ($filter: VerifyTransactionFilter, $first: Int, $after: String) {
  verifyTransactions(filter: $filter, first: $first, after: $after) {
    nodes { id accountId transactionId amount sendingBank receivingBank upstream latencyMs createdAt response }
    pageInfo { hasNextPage endCursor }
  }
}`;
const RE = `query ($filter: RequestErrorFilter, $first: Int, $after: String) {
  requestErrors(filter: $filter, first: $first, after: $after) {
    nodes { id accountId account { id } kind message upstream createdAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

const RE_BY_SLIP = 'query($filter: RequestErrorFilter) { requestErrors(filter: $filter) { nodes { requestId transactionId sendingBank kind accountId } } }';
const bangkokDay = (iso: string) => new Date(Date.parse(iso) + 7 * 3_600_000).toISOString().slice(0, 10);

describe('GraphQL admin API: audit log, usage and upstreams', () => {
  let app: GraphqlTestApp;
  let a: { accountId: string; apiKey: string };
  let b: { accountId: string; apiKey: string };
  let broke: { accountId: string; apiKey: string };
  let mid: Date;
  const transactionIds: string[] = [];

  beforeAll(async () => {
    app = await startGraphqlApp({ configuredNetwork: true, env: { UPSTREAMS } });
    a = await app.account(20);
    b = await app.account(5);
    broke = await app.account(0);
    for (const qr of [
      sandboxQr({ bank: '014', amount: 100 }),
      sandboxQr({ bank: '014', amount: 200 }),
      sandboxQr({ bank: '014', amount: 300 }),
      sandboxQr({ bank: '004', amount: 10 }),
      sandboxQr({ bank: '004', amount: 20 }),
    ]) {
      const res = await app.verify(a.apiKey, qr);
      expect(res.body.status).toBe('success');
      transactionIds.push(res.body.data.transactionId);
    }
    expect((await app.verify(a.apiKey, sandboxQr({ outcome: 'not-found' }))).body.status).toBe('error');
    expect((await app.verify(a.apiKey, sandboxQr({ outcome: 'error' }))).body.status).toBe('error');
    // Everything above strictly before `mid`, everything below strictly after it.
    await clockPast(Date.now());
    mid = new Date();
    await clockPast(mid.getTime());
    expect((await app.verify(b.apiKey, sandboxQr({ bank: '025', amount: 55 }))).body.status).toBe('success');
    expect((await app.verify(broke.apiKey, sandboxQr())).body.code).toBe(1023);
    expect((await app.verify('slip_doesNotExist000000000000000000000', sandboxQr())).body.code).toBe(1021);
  });
  afterAll(() => app?.stop());

  const vt = async (filter: Record<string, unknown>, first = 100) => dataOf(await app.gql('viewer', VT, { filter, first })).verifyTransactions.nodes as any[];
  const re = async (filter: Record<string, unknown>, first = 100) => dataOf(await app.gql('viewer', RE, { filter, first })).requestErrors.nodes as any[];

  it('filters verifications by account, bank, transaction and upstream', async () => {
    expect(await vt({ accountId: a.accountId })).toHaveLength(5);
    const scb = await vt({ accountId: a.accountId, sendingBank: '014' });
    expect(scb.map((n) => n.amount).sort()).toEqual([100, 200, 300]);
    const one = await vt({ transactionId: transactionIds[3] });
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ accountId: a.accountId, amount: 10, sendingBank: '004', response: { transactionId: transactionIds[3], amount: 10 } });
    const toReceiver = await vt({ receivingBank: one[0].receivingBank });
    expect(toReceiver.length).toBeGreaterThan(0);
    expect(toReceiver.every((n) => n.receivingBank === one[0].receivingBank)).toBe(true);

    const all = await vt({});
    expect(all).toHaveLength(6);
    const byUpstream = { 'sbx-a': await vt({ upstream: 'sbx-a' }), 'sbx-b': await vt({ upstream: 'sbx-b' }) };
    expect(byUpstream['sbx-a'].length + byUpstream['sbx-b'].length).toBe(6);
    for (const [name, nodes] of Object.entries(byUpstream)) expect(nodes.every((n) => n.upstream === name)).toBe(true);
    expect(await vt({ upstream: 'nowhere' })).toEqual([]);
  });

  it('filters by time: from is inclusive, to exclusive', async () => {
    const after = await vt({ from: mid.toISOString() });
    expect(after.map((n) => n.accountId)).toEqual([b.accountId]);
    const before = await vt({ to: mid.toISOString() });
    expect(before).toHaveLength(5);
    const exact = await vt({ from: after[0].createdAt, to: new Date(Date.parse(after[0].createdAt) + 1).toISOString() });
    expect(exact.map((n) => n.id)).toContain(after[0].id);
    expect(await vt({ to: after[0].createdAt, from: mid.toISOString() })).toEqual([]);
    const bangkok = await vt({ from: new Date(mid.getTime() + 7 * 3_600_000).toISOString().replace('Z', '+07:00') });
    expect(bangkok.map((n) => n.accountId)).toEqual([b.accountId]);
  });

  it('filters failed requests by kind, account and upstream', async () => {
    const notFound = await re({ kind: 'SLIP_NOT_FOUND' });
    expect(notFound).toHaveLength(1);
    expect(notFound[0]).toMatchObject({ accountId: a.accountId, account: { id: a.accountId }, upstream: expect.stringMatching(/^sbx-[ab]$/) });
    expect((await re({ accountId: a.accountId })).map((n) => n.kind).sort()).toEqual(['SLIP_NOT_FOUND', 'UPSTREAM_ERROR']);
    expect((await re({ accountId: broke.accountId })).map((n) => n.kind)).toEqual(['INSUFFICIENT_FUND']);
    const anonymous = await re({ kind: 'INVALID_API_KEY' });
    expect(anonymous).toEqual([expect.objectContaining({ accountId: null, account: null, message: 'invalid api key' })]);
    const [upstreamError] = await re({ kind: 'UPSTREAM_ERROR' });
    const other = upstreamError.upstream === 'sbx-a' ? 'sbx-b' : 'sbx-a';
    expect(await re({ kind: 'UPSTREAM_ERROR', upstream: upstreamError.upstream })).toHaveLength(1);
    expect(await re({ kind: 'UPSTREAM_ERROR', upstream: other })).toEqual([]);
    expect(await re({ from: mid.toISOString(), accountId: a.accountId })).toEqual([]);
  });

  it('pages with cursors: every record once, same order as one big page', async () => {
    const [big, pages] = [await vt({}), [] as any[]];
    let after: string | null = null;
    do {
      const page: any = dataOf(await app.gql('viewer', VT, { first: 2, after })).verifyTransactions;
      pages.push(...page.nodes);
      after = page.pageInfo.endCursor;
    } while (after);
    expect(pages.map((n) => n.id)).toEqual(big.map((n) => n.id));
    const errorPages: any[] = [];
    after = null;
    do {
      const page: any = dataOf(await app.gql('viewer', RE, { first: 1, after })).requestErrors;
      errorPages.push(...page.nodes);
      after = page.pageInfo.endCursor;
    } while (after);
    expect(errorPages.map((n) => n.id)).toEqual((await re({})).map((n) => n.id));
    expect(new Set(errorPages.map((n) => n.id)).size).toBe(4);
  });

  it('rejects a time range that ends before it starts and malformed dates', async () => {
    const res = await app.gql('viewer', VT, { filter: { from: mid.toISOString(), to: new Date(mid.getTime() - 1).toISOString() } });
    expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
    for (const bad of ['yesterday', '2025-01-01', '2025-01-01T00:00:00']) {
      const r = await app.gql('viewer', VT, { filter: { from: bad } });
      expect(r.body.errors[0].message).toMatch(/DateTime must be an ISO-8601/);
      expect(errorCodes(r)).toEqual(['BAD_USER_INPUT']);
    }
    const literal = await app.gql('viewer', '{ verifyTransactions(filter: { from: "soon" }) { nodes { id } } }');
    expect(literal.body.errors[0].message).toMatch(/DateTime must be an ISO-8601/);
  });

  it('aggregates usage per account and Bangkok day, and it matches the balances', async () => {
    const records = [...(await vt({})), ...(await re({}))].filter((n) => n.accountId === a.accountId);
    const days = [...new Set(records.map((n) => bangkokDay(n.createdAt)))];
    const usage = dataOf(
      await app.gql('viewer', `{ usage(accountId: "${a.accountId}") { accountId account { id credits } day successes failures failuresByKind { kind count } creditsSpent } }`),
    ).usage;
    expect(usage.map((u: { day: string }) => u.day)).toEqual(days.sort());
    const total = usage.reduce(
      (t: any, u: any) => ({ successes: t.successes + u.successes, failures: t.failures + u.failures, creditsSpent: t.creditsSpent + u.creditsSpent }),
      { successes: 0, failures: 0, creditsSpent: 0 },
    );
    expect(total).toEqual({ successes: 5, failures: 2, creditsSpent: 5 });
    expect(usage[0].account.credits).toBe(20 - total.creditsSpent);
    if (usage.length === 1) {
      expect(usage[0].failuresByKind).toEqual([
        { kind: 'SLIP_NOT_FOUND', count: 1 },
        { kind: 'UPSTREAM_ERROR', count: 1 },
      ]);
    }

    const everyone = dataOf(await app.gql('viewer', '{ usage { accountId successes failuresByKind { kind count } } }')).usage;
    expect(new Set(everyone.map((u: { accountId: string }) => u.accountId))).toEqual(new Set([a.accountId, b.accountId, broke.accountId]));
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(dataOf(await app.gql('viewer', `{ usage(from: "${future}") { day } }`)).usage).toEqual([]);
  });

  it('reports each upstream domain with counts that match the audit log', async () => {
    const upstreams = dataOf(
      await app.gql('viewer', '{ upstreams { name provider enabled weight priority usable unusableReason readsQuota quotaRemaining requests failures failuresByKind { kind count } consecutiveFailures p50Ms p95Ms breaker } }'),
    ).upstreams as any[];
    expect(upstreams.map((u) => u.name)).toEqual(['sbx-a', 'sbx-b']);
    const successes = await vt({});
    const failures = await re({});
    for (const u of upstreams) {
      const ok = successes.filter((n) => n.upstream === u.name).length;
      const failed = failures.filter((n) => n.upstream === u.name).length;
      expect(u).toMatchObject({ provider: 'sandbox', enabled: true, weight: 1, breaker: 'CLOSED', requests: ok + failed, failures: failed });
      // The sandbox has no quota call: always usable, no reading.
      expect(u).toMatchObject({ priority: 1, usable: true, unusableReason: null, readsQuota: false, quotaRemaining: null });
      expect(u.failuresByKind.map((f: { kind: string }) => f.kind).sort()).toEqual(['SLIP_NOT_FOUND', 'UPSTREAM_ERROR', 'UPSTREAM_MISMATCH', 'UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE']);
      if (u.requests > 0) expect(u.p95Ms).toBeGreaterThanOrEqual(u.p50Ms);
    }
    expect(upstreams.reduce((n, u) => n + u.requests, 0)).toBe(8);
  });

  it('loads the accounts of a 100-record page with one batched store call', async () => {
    const shops = await Promise.all(Array.from({ length: 4 }, () => app.account(30)));
    for (const shop of shops) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => app.verify(shop.apiKey, sandboxQr())));
      expect(answers.every((r) => r.body.status === 'success')).toBe(true);
    }
    const store = app.store;
    const calls = { getAccounts: 0, getAccount: 0, ids: 0 };
    const getAccounts = store.getAccounts.bind(store);
    const getAccount = store.getAccount.bind(store);
    store.getAccounts = async (ids) => {
      calls.getAccounts++;
      calls.ids += ids.length;
      return getAccounts(ids);
    };
    store.getAccount = async (id) => {
      calls.getAccount++;
      return getAccount(id);
    };
    try {
      const page = dataOf(await app.gql('viewer', '{ verifyTransactions(first: 100) { nodes { accountId account { id name credits } } } }')).verifyTransactions.nodes as any[];
      expect(page).toHaveLength(100);
      expect(page.every((n) => n.account.id === n.accountId && n.account.name === 'Test Shop')).toBe(true);
      expect(new Set(page.map((n) => n.accountId)).size).toBe(4);
      expect(calls).toEqual({ getAccounts: 1, getAccount: 0, ids: 4 });
    } finally {
      store.getAccounts = getAccounts;
      store.getAccount = getAccount;
    }
  });

  it('finds a refused slip by its transaction and bank, and any request by its x-request-id', async () => {
    const shop = await app.account(5);
    const fake = sandboxQr({ bank: '014', outcome: 'not-found' });
    const parsed = parseSlipQr(fake);
    if (!parsed.ok) throw new Error(parsed.reason);
    const refused = await app.verify(shop.apiKey, fake);
    expect(refused.body).toEqual({ status: 'error', message: expect.stringMatching(/^slip not found/) });
    const byFilter = async (filter: object) => dataOf(await app.gql('viewer', RE_BY_SLIP, { filter })).requestErrors.nodes;
    const bySlip = await byFilter({ transactionId: parsed.slip.transRef, sendingBank: '014' });
    expect(bySlip).toEqual([{ requestId: refused.headers.get('x-request-id'), transactionId: parsed.slip.transRef, sendingBank: '014', kind: 'SLIP_NOT_FOUND', accountId: shop.accountId }]);
    expect(await byFilter({ transactionId: parsed.slip.transRef, sendingBank: '004' })).toEqual([]);
    expect(await byFilter({ requestId: refused.headers.get('x-request-id') })).toEqual(bySlip);
    // A QR that does not parse has no slip to file it under.
    const garbage = await app.verify(shop.apiKey, 'not a slip');
    expect(await byFilter({ requestId: garbage.headers.get('x-request-id') })).toEqual([
      { requestId: garbage.headers.get('x-request-id'), transactionId: null, sendingBank: null, kind: 'INVALID_QR', accountId: shop.accountId },
    ]);

    const ok = await app.verify(shop.apiKey, sandboxQr());
    const found = dataOf(await app.gql('viewer', VT, { filter: { requestId: ok.headers.get('x-request-id') } })).verifyTransactions.nodes;
    expect(found.map((n: { accountId: string }) => n.accountId)).toEqual([shop.accountId]);
  });

  it('says where the QR came from: IMAGE for a slip picture read by slipgate, QRCODE otherwise', async () => {
    const shop = await app.account(3);
    const qrcode = sandboxQr({ amount: 42 });
    const picture = (await QRCode.toBuffer(qrcode, { width: 400, margin: 4 })).toString('base64');
    expect((await app.post({ image: picture }, { 'x-api-key': shop.apiKey })).body.qrcode).toBe(qrcode);
    expect((await app.verify(shop.apiKey, sandboxQr())).body.status).toBe('success');
    const SOURCE = 'query ($filter: VerifyTransactionFilter) { verifyTransactions(filter: $filter) { nodes { qrcode source } } }';
    const nodes = dataOf(await app.gql('viewer', SOURCE, { filter: { accountId: shop.accountId } })).verifyTransactions.nodes as { qrcode: string; source: string }[];
    expect(nodes.map((n) => n.source).sort()).toEqual(['IMAGE', 'QRCODE']);
    expect(nodes.find((n) => n.source === 'IMAGE')!.qrcode).toBe(qrcode);
  });
});
