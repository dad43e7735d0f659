// The slip APIs (EasySlip, Slip2Go) against their simulators over real
// loopback HTTP: how each maps its answers (the slip, every outcome class,
// bad input from the provider) and reads its quota. The simulators were
// written from the providers' docs apart from the adapters, so a misreading
// on either side fails here. The shared conformance suite runs them too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BankAdapter, SlipQuery } from '../../src/domain/ports/upstream.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { parseUpstreamConfigs, type UpstreamConfig } from '../../src/upstream/config.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import { bankProvider } from '../../src/upstream/registry.js';
import { sandboxTransaction } from '../../src/upstream/sandbox/transaction.js';
import type { AdapterResult } from '../../src/upstream/shared/outcomes.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { withQr } from '../helpers/slip-query.js';

interface SlipApiCase {
  provider: 'easyslip' | 'slip2go';
  /** The field of the entry that holds the secret. */
  secretField: string;
  /** The slip record inside the provider's `data` member. */
  slipOf: (data: Record<string, unknown>) => Record<string, unknown>;
  /** What an unlimited simulator reports as remaining. */
  unlimited: number | null;
}

const CASES: SlipApiCase[] = [
  { provider: 'easyslip', secretField: 'apiKey', slipOf: (d) => d.rawSlip as Record<string, unknown>, unlimited: null },
  { provider: 'slip2go', secretField: 'apiSecret', slipOf: (d) => d, unlimited: 1_000_000 },
];

let counter = 0;
const slip = (sendingBank = '004', transRef = `SLIPAPI${++counter}X${Date.now()}`): SlipQuery => withQr({ sendingBank, transRef, requestId: `req_${counter}` });
const budget = () => AbortSignal.timeout(5_000);

function configOf(p: SlipApiCase, bank: SimulatedBank, overrides: Record<string, unknown> = {}): UpstreamConfig {
  const entry = { ...bankSimulator(p.provider).entry(bank.url, bank.credentials), name: `${p.provider}-a`, ...overrides };
  return parseUpstreamConfigs([entry], { source: 'UPSTREAMS', baseDir: process.cwd() })[0]!;
}

function adapterOf(config: UpstreamConfig): BankAdapter {
  return bankProvider(config.provider)!.createAdapter(config, { bankOptions: {} });
}

describe.each(CASES)('$provider slip API', (p) => {
  let bank: SimulatedBank;
  let pool: UpstreamPool;
  let adapter: BankAdapter;

  beforeEach(async () => {
    bank = await startSimulatedBank({ provider: p.provider, port: 0 });
    const config = configOf(p, bank);
    pool = buildUpstream([config], { breakerThreshold: Number.POSITIVE_INFINITY });
    adapter = adapterOf(config);
  });
  afterEach(async () => {
    await adapter?.close?.();
    await pool?.close();
    await bank?.close();
  });

  it('maps the slip: every field of data, the time with +07:00 and its timestamp the same instant, rawData as the provider sent it', async () => {
    const q = slip();
    const result = await pool.verify(q, budget());
    const tx = sandboxTransaction('004', q.transRef);
    const dateTime = `${String(tx.transDate).slice(0, 4)}-${String(tx.transDate).slice(4, 6)}-${String(tx.transDate).slice(6, 8)}T${tx.transTime}+07:00`;
    const sender = tx.sender as Record<string, unknown> & { account: { value: string } };
    const receiver = tx.receiver as Record<string, unknown> & { account: { value: string } | ''; proxy: { type: string; value: string } | '' };
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.slip).toEqual({
      amount: Number(tx.amount),
      dateTime,
      timestamp: Date.parse(dateTime) / 1000,
      transactionId: q.transRef,
      senderBankAccountNumber: sender.account.value,
      senderName: sender.displayName,
      senderNameEN: p.provider === 'easyslip' ? sender.name : '',
      senderBank: 'KBANK',
      senderBankCode: '004',
      receiverBankAccountNumber: receiver.account ? receiver.account.value : '',
      receiverName: receiver.displayName,
      receiverNameEN: p.provider === 'easyslip' ? receiver.name : '',
      receiverBank: tx.receivingBank === '004' ? 'KBANK' : 'SCB',
      receiverBankCode: tx.receivingBank,
      receiverPromptpay: receiver.proxy ? receiver.proxy.value : '',
      receiverProxyType: receiver.proxy ? receiver.proxy.type : '',
      rawData: (bank.state.lastReply as { data: unknown }).data,
    });
    // The provider's own checks are slipgate's: never asked for.
    expect(bank.state.calls.providerChecks).toBe(0);
  });

  it('accepts an answer that spells the reference in another case, naming the slip by the QR', async () => {
    const q = slip('004', `MixedCase${++counter}Ref`);
    bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: tx.transRef.toLowerCase() });
    const result = await pool.verify(q, budget());
    expect(result).toMatchObject({ ok: true, slip: { transactionId: q.transRef } });
    if (result.ok) expect(p.slipOf(result.slip.rawData).transRef).toBe(q.transRef.toLowerCase());
  });

  it('refuses an answer about another slip', async () => {
    bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: 'ANOTHERSLIP0001' });
    expect(await pool.verify(slip(), budget())).toMatchObject({ ok: false, kind: 'upstream_mismatch' });
  });

  it('answers a slip marked as seen before with its data, like any other', async () => {
    bank.state.behavior.answer = 'duplicate';
    expect(await pool.verify(slip(), budget())).toMatchObject({ ok: true, slip: { amount: expect.any(Number) } });
  });

  it.each([
    { name: 'a slip the bank does not know', answer: 'not_found' as const, expected: { ok: false, kind: 'slip_not_found' } },
    { name: 'a bank that publishes later', answer: 'pending' as const, expected: { ok: false, kind: 'slip_not_found', retryAfterMs: 60_000 } },
    { name: 'a quota used up', answer: 'quota_exceeded' as const, expected: { ok: false, kind: 'upstream_unavailable', unusable: expect.stringMatching(/quota/i) } },
    { name: 'a bank error', answer: 'bank_error' as const, expected: { ok: false, kind: 'upstream_error' } },
    { name: 'a body that is not JSON', answer: 'malformed_json' as const, expected: { ok: false, kind: 'upstream_error', message: 'verification service error: malformed response' } },
  ])('maps $name to one class', async ({ answer, expected }) => {
    bank.state.behavior.answer = answer;
    const result = await adapter.verify(slip(), budget());
    expect(result).toMatchObject({ ...expected, upstream: `${p.provider}-a` });
    if (answer !== 'pending') expect(result).not.toHaveProperty('retryAfterMs');
    if (answer !== 'quota_exceeded') expect(result).not.toHaveProperty('unusable');
  });

  it('stops serving when the quota runs out, and says so', async () => {
    bank.state.behavior.quota = 1;
    expect(await adapter.verify(slip(), budget())).toMatchObject({ ok: true });
    expect(await adapter.verify(slip(), budget())).toMatchObject({ ok: false, kind: 'upstream_unavailable', unusable: expect.any(String) });
  });

  it('marks a refused key as a domain that cannot serve, without the key in the message', async () => {
    const wrong = adapterOf(configOf(p, bank, { [p.secretField]: 'not-the-key', name: 'wrong' }));
    try {
      const result = (await wrong.verify(slip(), budget())) as AdapterResult;
      expect(result).toMatchObject({ ok: false, kind: 'upstream_unavailable', unusable: expect.any(String), upstream: 'wrong' });
      expect(JSON.stringify(result)).not.toContain('not-the-key');
      expect(await wrong.readQuota!(budget())).toMatchObject({ ok: false, unusable: expect.any(String) });
    } finally {
      await wrong.close?.();
    }
  });

  it('maps an HTTP 503 to an upstream error', async () => {
    bank.state.behavior.httpStatus = 503;
    expect(await adapter.verify(slip(), budget())).toMatchObject({ ok: false, kind: 'upstream_error' });
  });

  it('refuses a number where the reference belongs as an upstream error', async () => {
    bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: 12345 });
    expect(await pool.verify(slip(), budget())).toMatchObject({ ok: false, kind: 'upstream_error' });
  });

  it('cuts off an answer of 20 MB with a short upstream error', async () => {
    bank.state.behavior.rewrite = (tx) => ({ ...tx, ref1: 'x'.repeat(20 * 1024 * 1024) });
    const result = await adapter.verify(slip(), budget());
    expect(result).toEqual({ ok: false, kind: 'upstream_error', message: 'verification service error: answer larger than 256 KB', upstream: `${p.provider}-a` });
  });

  it('answers a timeout at the deadline when the provider never answers', async () => {
    bank.state.behavior.latencyMs = 60_000;
    expect(await adapter.verify(slip(), AbortSignal.timeout(300))).toMatchObject({ ok: false, kind: 'upstream_timeout' });
  });

  it('sends a slip picture as the documented multipart part, with the same outcomes', async () => {
    const q = slip();
    const picture = new Uint8Array(await QRCode.toBuffer(q.qrcode, { type: 'png', width: 360, margin: 4 }));
    const withPicture = adapter as BankAdapter & { verifyPicture(bytes: Uint8Array, mimeType: string, requestId: string, signal: AbortSignal): Promise<AdapterResult> };
    const found = await withPicture.verifyPicture(picture, 'image/png', q.requestId, budget());
    expect(found).toMatchObject({ ok: true, transaction: { transRef: q.transRef, sendingBank: '004' } });
    expect(bank.state.calls.providerChecks).toBe(0);
    const blank = new Uint8Array(await QRCode.toBuffer('https://example.com/not-a-slip', { type: 'png', width: 360, margin: 4 }));
    expect(await withPicture.verifyPicture(blank, 'image/png', q.requestId, budget())).toMatchObject({ ok: false, kind: 'slip_not_found' });
  });

  it('reads the quota without spending a verification', async () => {
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: p.unlimited });
    bank.state.behavior.quota = 3;
    await adapter.verify(slip(), budget());
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: 2 });
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: 2 });
    expect(bank.state.calls.verify).toBe(1);
  });
});

describe.each(CASES)('$provider against a body that never ends', (p) => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('cuts it off with an upstream error', async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        if (!res.destroyed) res.write(chunk, () => setImmediate(more));
      };
      res.write('{"success": true, "code": "200000", "data": "');
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const entry = { ...bankSimulator(p.provider).entry(url, { id: 'x', secret: 'y' }), name: 'endless' };
    const adapter = adapterOf(parseUpstreamConfigs([entry], { source: 'UPSTREAMS', baseDir: process.cwd() })[0]!);
    try {
      expect(await adapter.verify(slip(), budget())).toMatchObject({ ok: false, kind: 'upstream_error', message: 'verification service error: answer larger than 256 KB' });
    } finally {
      await adapter.close?.();
      server.closeAllConnections();
    }
  });
});
