// Both bank adapters against their fake banks over real loopback HTTP: the
// same behaviour is expected from each, whatever its wire protocol.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../src/upstream/config.js';
import { KbankUpstream } from '../../src/upstream/kbank/kbank-upstream.js';
import { sandboxTransRef, sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import { ScbUpstream } from '../../src/upstream/scb/scb-upstream.js';
import type { OAuthBankOptions, OAuthBankUpstream } from '../../src/upstream/shared/oauth-bank-upstream.js';
import { isConnectionFailure } from '../../src/upstream/shared/outcomes.js';
import type { SlipQuery } from '../../src/domain/ports/upstream.js';
import { eventually } from '../helpers/child.js';
import type { FakeBank } from '../fakes/fake-bank.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb } from '../fakes/scb-server.js';
import { withQr } from '../helpers/slip-query.js';

interface ProviderCase {
  provider: 'kbank' | 'scb';
  sendingBank: string;
  start: () => Promise<FakeBank & { config(name?: string): UpstreamConfig }>;
  adapter: (config: UpstreamConfig, opts?: OAuthBankOptions) => OAuthBankUpstream;
  amountOf: (text: string) => string | number;
  notFoundMessage: string;
  bankErrorMessage: string;
}

const PROVIDERS: ProviderCase[] = [
  {
    provider: 'kbank',
    sendingBank: '004',
    start: startFakeKbank,
    adapter: (config, opts) => new KbankUpstream(config as Extract<UpstreamConfig, { provider: 'kbank' }>, opts),
    amountOf: Number,
    notFoundMessage: 'slip not found: transaction not found or too old',
    bankErrorMessage: 'verification service error: system error, please try again later (code 9999)',
  },
  {
    provider: 'scb',
    sendingBank: '014',
    start: startFakeScb,
    adapter: (config, opts) => new ScbUpstream(config as Extract<UpstreamConfig, { provider: 'scb' }>, opts),
    amountOf: String,
    notFoundMessage: 'slip not found: transaction not found',
    bankErrorMessage: 'verification service error: unexpected error has occurred (code 9700)',
  },
];

let requestCounter = 0;
const slip = (sendingBank: string, transRef = `REF${++requestCounter}X${Date.now()}`): SlipQuery =>
  withQr({ sendingBank, transRef, requestId: `req_${requestCounter}` });
const budget = () => AbortSignal.timeout(5_000);

describe.each(PROVIDERS)('$provider adapter', (p) => {
  let bank: Awaited<ReturnType<ProviderCase['start']>>;
  let upstream: OAuthBankUpstream;

  beforeEach(async () => {
    bank = await p.start();
    upstream = p.adapter(bank.config(`${p.provider}-a`));
  });
  afterEach(async () => {
    upstream.close();
    await bank.close();
  });

  it('returns the transaction the bank reports, passed through unchanged', async () => {
    const query = slip(p.sendingBank);
    const result = await upstream.verify(query, budget());
    const expected = sandboxTransaction(p.sendingBank, query.transRef);
    expect(result).toEqual({ ok: true, upstream: `${p.provider}-a`, data: { ...expected, amount: p.amountOf(expected.amount as string) } });
  });

  it('asks for one token for many verifications, concurrent ones included', async () => {
    bank.setBehavior({ tokenLatencyMs: 50 });
    const first = await Promise.all(Array.from({ length: 20 }, () => upstream.verify(slip(p.sendingBank), budget())));
    for (let i = 0; i < 5; i++) await upstream.verify(slip(p.sendingBank), budget());
    expect(first.every((r) => r.ok)).toBe(true);
    expect(bank.calls.token).toBe(1);
    expect(bank.calls.verify).toBe(25);
  });

  it('refreshes the token once and retries when the bank answers 401', async () => {
    await upstream.verify(slip(p.sendingBank), budget());
    bank.expireTokens();
    const results = await Promise.all(Array.from({ length: 5 }, () => upstream.verify(slip(p.sendingBank), budget())));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(bank.calls.unauthorized).toBe(5);
    // The five 401s share one refresh.
    expect(bank.calls.token).toBe(2);
  });

  it('reports an error instead of looping when even a fresh token is refused', async () => {
    bank.setBehavior({ tokenLifetimeSec: 0 });
    const result = await upstream.verify(slip(p.sendingBank), budget());
    expect(result).toMatchObject({ ok: false, kind: 'upstream_error', upstream: `${p.provider}-a` });
    expect(bank.calls.token).toBe(2);
    expect(bank.calls.verify).toBe(2);
  });

  it('renews the token shortly before it expires, not after', async () => {
    let now = 1_000_000;
    const clocked = p.adapter(bank.config('clocked'), { now: () => now });
    try {
      bank.setBehavior({ tokenLifetimeSec: 600 }); // refresh margin: 60 s
      await clocked.verify(slip(p.sendingBank), budget());
      now += 539_000;
      await clocked.verify(slip(p.sendingBank), budget());
      expect(bank.calls.token).toBe(1);
      now += 2_000;
      await clocked.verify(slip(p.sendingBank), budget());
      expect(bank.calls.token).toBe(2);
      expect(bank.calls.unauthorized).toBe(0);
    } finally {
      clocked.close();
    }
  });

  it('reports rejected credentials as an upstream error', async () => {
    const wrong = p.adapter({ ...bank.config('wrong'), ...(p.provider === 'kbank' ? { clientSecret: 'nope' } : { apiSecret: 'nope' }) } as UpstreamConfig);
    try {
      const result = await wrong.verify(slip(p.sendingBank), budget());
      expect(result).toMatchObject({ ok: false, kind: 'upstream_error', upstream: 'wrong' });
      expect(result.ok || result.message).toMatch(/^verification service error: bank rejected the (client credentials|API key and secret) \(HTTP 401\)$/);
      expect(bank.calls.verify).toBe(0);
    } finally {
      wrong.close();
    }
  });

  it.each([
    { name: 'an HTTP 503', behavior: { httpStatus: 503 }, kind: 'upstream_error', message: 'verification service error: bank answered HTTP 503' },
    { name: 'a body that is not JSON', behavior: { answer: 'malformed_json' as const }, kind: 'upstream_error', message: 'verification service error: malformed response from bank' },
    { name: 'the not-found code', behavior: { answer: 'not_found' as const }, kind: 'slip_not_found', message: 'not-found' },
    { name: 'another bank status code', behavior: { answer: 'bank_error' as const }, kind: 'upstream_error', message: 'bank-error' },
  ])('maps $name to $kind', async ({ behavior, kind, message }) => {
    bank.setBehavior(behavior);
    const result = await upstream.verify(slip(p.sendingBank), budget());
    const expectedMessage = message === 'not-found' ? p.notFoundMessage : message === 'bank-error' ? p.bankErrorMessage : message;
    expect(result).toEqual({ ok: false, kind, message: expectedMessage, upstream: `${p.provider}-a` });
    expect(isConnectionFailure(result)).toBe(false);
  });

  it('honours the outcome a sandbox transRef asks for', async () => {
    const result = await upstream.verify(slip(p.sendingBank, sandboxTransRef(12_345, 'not-found', 'abc')), budget());
    expect(result).toMatchObject({ ok: false, kind: 'slip_not_found' });
  });

  // The bank's record says how each call ended: "abandoned" means the adapter
  // hung up before the bank had answered, i.e. it did not wait for the bank.
  it('answers a timeout at the caller’s deadline, hanging up before the slow bank answers', async () => {
    await upstream.verify(slip(p.sendingBank), budget()); // token first, so only verify is slow
    bank.setBehavior({ latencyMs: 60_000 });
    const result = await upstream.verify(slip(p.sendingBank), AbortSignal.timeout(300));
    expect(result).toEqual({ ok: false, kind: 'upstream_timeout', message: 'verification service timed out', upstream: `${p.provider}-a` });
    await eventually(async () => bank.exchanges.length === 3);
    expect(bank.exchanges).toEqual([
      { call: 'token', outcome: 'answered' },
      { call: 'verify', outcome: 'answered' },
      { call: 'verify', outcome: 'abandoned' },
    ]);
  });

  it('answers a timeout when the bank never answers at all', async () => {
    const result = await upstream.verify(slip(p.sendingBank, sandboxTransRef(100, 'timeout', 'hang')), AbortSignal.timeout(200));
    expect(result).toMatchObject({ ok: false, kind: 'upstream_timeout' });
    await eventually(async () => bank.exchanges.some((e) => e.call === 'verify'));
    expect(bank.exchanges.filter((e) => e.call === 'verify')).toEqual([{ call: 'verify', outcome: 'abandoned' }]);
  });

  it('answers a timeout when the deadline passes while the token is being fetched, never asking to verify', async () => {
    bank.setBehavior({ tokenLatencyMs: 60_000 });
    // The token call outlives the caller (others may wait for it) until its own timeout: 1 s here, not the default 10 s.
    upstream.close();
    upstream = p.adapter(bank.config(`${p.provider}-a`), { tokenTimeoutMs: 1_000 });
    const result = await upstream.verify(slip(p.sendingBank), AbortSignal.timeout(200));
    expect(result).toMatchObject({ ok: false, kind: 'upstream_timeout', upstream: `${p.provider}-a` });
    await eventually(async () => bank.exchanges.length === 1);
    expect(bank.exchanges).toEqual([{ call: 'token', outcome: 'abandoned' }]);
    expect(bank.calls.verify).toBe(0);
  });

  it('lets one caller give up without failing the others waiting for the same token', async () => {
    bank.setBehavior({ tokenLatencyMs: 300 });
    const impatient = upstream.verify(slip(p.sendingBank), AbortSignal.timeout(50));
    const patient = upstream.verify(slip(p.sendingBank), budget());
    expect(await impatient).toMatchObject({ ok: false, kind: 'upstream_timeout' });
    expect(await patient).toMatchObject({ ok: true });
    expect(bank.calls.token).toBe(1);
  });

  it('reports a refused connection as unavailable and marks it for failover', async () => {
    await upstream.verify(slip(p.sendingBank), budget());
    await bank.refuseConnections();
    const result = await upstream.verify(slip(p.sendingBank), budget());
    expect(result).toMatchObject({ ok: false, kind: 'upstream_unavailable', message: 'verification service unavailable', upstream: `${p.provider}-a` });
    expect(isConnectionFailure(result)).toBe(true);

    await bank.acceptConnections();
    expect(await upstream.verify(slip(p.sendingBank), budget())).toMatchObject({ ok: true });
  });
});
