// What every slip API provider must do beyond a bank's conformance
// (conformance.ts): run against its own simulator over real loopback HTTP,
// configured through UPSTREAMS parsing and built by the pool, with every
// answer the simulator sent captured so rawData is compared with it.
// Provider-specific expectations (the raw replies of its documented codes,
// the delays it names) come with each provider's case.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BankAdapter, SlipQuery } from '../../src/domain/ports/upstream.js';
import { slipReference } from '../../src/domain/verify/slip-qr.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { parseUpstreamConfigs, type UpstreamConfig } from '../../src/upstream/config.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import { bankProvider } from '../../src/upstream/registry.js';
import { sandboxTransRef } from '../../src/upstream/sandbox/transaction.js';
import type { AdapterFailure } from '../../src/upstream/shared/outcomes.js';
import { SimulatedBankState, type RawReply } from '../../src/upstream/simulator/bank-state.js';
import { bankSimulator, closeServer, createBankResponder, listen } from '../../src/upstream/simulator/simulated-bank.js';
import { withQr } from '../helpers/slip-query.js';

/** How one documented reply must land: a success, or a failure kind with the flags the pool acts on. */
export type Landing =
  | { ok: true }
  | { ok: false; kind: AdapterFailure['kind']; retryAfterMs?: number; unusable?: true };

export interface SlipApiCase {
  provider: string;
  /** The provider's `data` member in a success the simulator sent (what rawData must equal). */
  dataOf(answer: Record<string, unknown>): unknown;
  /** Whether it gives a party's English name beside the Thai one (Slip2Go gives one name: senderNameEN stays empty). */
  namesInEnglish: boolean;
  /** The delay its `pending` answer with `minutes` should be re-checked after. */
  /** The delay the adapter passes on; undefined: the provider names none. */
  pendingRetryMs(minutes: number): number | undefined;
  /** Documented replies (and a few undocumented ones) with where each must land; the slip in `slip` is the one asked about. */
  replies(slip: Record<string, unknown>): { name: string; reply: RawReply; lands: Landing }[];
}

let counter = 0;
const query = (sendingBank = '004'): SlipQuery =>
  withQr({ sendingBank, transRef: sandboxTransRef(123_450, 'success', `s${++counter}x${Date.now() % 100_000}`), requestId: `req_${counter}` });
const budget = () => AbortSignal.timeout(5_000);

interface Captured {
  url: string;
  state: SimulatedBankState;
  /** Bodies the simulator sent, in order (JSON answers only). */
  sent: string[];
  close(): Promise<void>;
}

async function startCapturingSimulator(provider: string): Promise<Captured> {
  const state = new SimulatedBankState(bankSimulator(provider).credentials);
  const responder = createBankResponder(provider, state);
  const sent: string[] = [];
  const server: Server = createServer((req, res) => {
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string') sent.push(args[0]);
      return end(...args);
    }) as typeof res.end;
    responder(req, res);
  });
  await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state, sent, close: () => closeServer(server) };
}

interface LogLine {
  level: string;
  obj: object;
  msg: string;
}

export function slipApiConformance(c: SlipApiCase): void {
  describe(`${c.provider} slip API conformance`, () => {
    let bank: Captured;
    let pool: UpstreamPool;
    let adapter: BankAdapter;
    let logs: LogLine[];

    beforeEach(async () => {
      bank = await startCapturingSimulator(c.provider);
      const entry = { ...bankSimulator(c.provider).entry(bank.url, bank.state.credentials), name: `${c.provider}-a` };
      const [config] = parseUpstreamConfigs([entry], { source: 'UPSTREAMS', baseDir: process.cwd() }) as [UpstreamConfig];
      logs = [];
      const logger = {
        error: (obj: object, msg: string) => logs.push({ level: 'error', obj, msg }),
        warn: (obj: object, msg: string) => logs.push({ level: 'warn', obj, msg }),
      };
      pool = buildUpstream([config], { breakerThreshold: Number.POSITIVE_INFINITY, logger });
      adapter = bankProvider(c.provider)!.createAdapter(config, { bankOptions: {} });
    });
    afterEach(async () => {
      await pool?.close();
      await adapter?.close?.();
      await bank?.close();
    });

    const lastData = () => c.dataOf(JSON.parse(bank.sent.at(-1)!) as Record<string, unknown>);

    it('maps the slip to the contract: every field, the time with +07:00 and its instant; rawData is the data member as sent', async () => {
      const q = query('014');
      const result = await pool.verify(q, budget());
      if (!result.ok) throw new Error(result.message);
      const raw = lastData();
      // The banks' record the simulator answered from (the reference as the QR writes it), in whatever shape the provider sends it.
      const tx = bank.state.transaction(q.sendingBank, q.transRef) as Record<string, any>;
      const dateTime = `${tx.transDate.slice(0, 4)}-${tx.transDate.slice(4, 6)}-${tx.transDate.slice(6, 8)}T${tx.transTime}+07:00`;
      const receiverProxy = typeof tx.receiver.proxy === 'object' ? tx.receiver.proxy : { type: '', value: '' };
      const receiverAccount = typeof tx.receiver.account === 'object' ? tx.receiver.account.value : '';
      expect(result.slip).toEqual({
        amount: 1234.5,
        dateTime,
        timestamp: Date.parse(dateTime) / 1000,
        transactionId: slipReference(q.transRef),
        senderBankAccountNumber: tx.sender.account.value,
        senderName: tx.sender.displayName,
        senderNameEN: c.namesInEnglish ? tx.sender.name : '',
        senderBank: 'SCB',
        senderBankCode: '014',
        receiverBankAccountNumber: receiverAccount,
        receiverName: tx.receiver.displayName,
        receiverNameEN: c.namesInEnglish ? tx.receiver.name : '',
        receiverBank: tx.receivingBank === '004' ? 'KBANK' : 'SCB',
        receiverBankCode: tx.receivingBank,
        receiverPromptpay: receiverProxy.value,
        receiverProxyType: receiverProxy.type,
        rawData: raw,
      });
      expect(result.slip.dateTime).toMatch(/\+07:00$/);
      expect(new Date(result.slip.dateTime).getTime()).toBe(result.slip.timestamp * 1000);
      // Exactly as it came: the same JSON the simulator wrote.
      expect(JSON.stringify(result.slip.rawData)).toBe(JSON.stringify(raw));
      expect(bank.state.calls.providerChecks).toBe(0);
    });

    it('accepts the reference in another case, naming the slip by the QR', async () => {
      bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: tx.transRef.toLowerCase() });
      const q = query();
      expect(await pool.verify(q, budget())).toMatchObject({ ok: true, slip: { transactionId: slipReference(q.transRef) } });
    });

    it('refuses an answer about another slip, and one whose field is a number where text belongs', async () => {
      bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: 'ANOTHERSLIP0001' });
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_mismatch' });
      // Caught by the pool's answer rule or by the adapter's reading of its own shape: an upstream error either way.
      bank.state.behavior.rewrite = (tx) => ({ ...tx, transDate: 20251005 });
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_error' });
    });

    it('a slip the provider marks as seen before is a success like any other', async () => {
      bank.state.behavior.answer = 'duplicate';
      const q = query();
      const result = await pool.verify(q, budget());
      expect(result).toMatchObject({ ok: true, slip: { transactionId: slipReference(q.transRef), amount: 1234.5 } });
      expect(JSON.stringify(result.ok && result.slip.rawData)).toBe(JSON.stringify(lastData()));
    });

    it('a bank that publishes later: not found, free, re-checked no sooner than the delay the provider names', async () => {
      bank.state.behavior.answer = 'pending';
      bank.state.behavior.pendingMinutes = 7;
      const pending = await pool.verify(query(), budget());
      expect(pending).toMatchObject({ ok: false, kind: 'slip_not_found' });
      expect(pending.ok ? undefined : pending.retryAfterMs).toBe(c.pendingRetryMs(7));
    });

    it.each([
      // In slipgate's words (SlipOK, RDCW) or the provider's own (EasySlip, Slip2Go, through plainWords).
      { answer: 'quota_exceeded' as const, reason: /quota|subscription/i },
      { answer: 'key_refused' as const, reason: /refused|invalid|mismatch/i },
    ])('$answer: this domain cannot serve, said in a few words', async ({ answer, reason }) => {
      bank.state.behavior.answer = answer;
      const result = (await adapter.verify(query(), budget())) as AdapterFailure;
      expect(result).toMatchObject({ ok: false, kind: 'upstream_unavailable', unusable: expect.stringMatching(reason) });
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_unavailable', upstream: `${c.provider}-a` });
    });

    it('a package used up mid-run: successes until the quota is spent, then the domain cannot serve', async () => {
      bank.state.behavior.quota = 2;
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await adapter.verify(query(), budget()));
      expect(results.map((r) => r.ok)).toEqual([true, true, false]);
      expect((results[2] as AdapterFailure).unusable).toBeTruthy();
    });

    it('reads the quota without spending a verification', async () => {
      bank.state.behavior.quota = 5;
      await adapter.verify(query(), budget());
      const verifies = bank.state.calls.verify;
      expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: 4 });
      expect(bank.state.calls.verify).toBe(verifies);
    });

    it.each([
      { name: 'a body that is not JSON', answer: 'malformed_json' as const },
      { name: 'a body that never ends', answer: 'endless_body' as const },
      { name: 'an HTTP 500', answer: 'bank_error' as const },
    ])('$name is a free upstream error', async ({ answer }) => {
      bank.state.behavior.answer = answer;
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_error', upstream: `${c.provider}-a` });
    });

    it('an answer of 20 MB is dropped unread: an upstream error and a short log line', async () => {
      bank.state.behavior.reply = { status: 200, body: { data: 'x'.repeat(20 * 1024 * 1024) } };
      const result = await pool.verify(query(), budget());
      expect(result).toMatchObject({ ok: false, kind: 'upstream_error', message: 'verification service error: answer larger than 256 KB' });
      const line = logs.find((l) => l.msg === 'upstream verification failed');
      expect(line).toBeDefined();
      expect(JSON.stringify(line).length).toBeLessThan(1_000);
    });

    it('lands every documented reply in exactly one class; an undocumented one is an upstream error', async () => {
      const q = query();
      const slip = { ...bank.state.transaction(q.sendingBank, q.transRef) };
      for (const { name, reply, lands } of c.replies(slip)) {
        bank.state.behavior.reply = reply;
        const result = await adapter.verify(q, budget());
        const seen = result.ok
          ? { ok: true }
          : {
              ok: false,
              kind: result.kind,
              ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
              ...((result as AdapterFailure).unusable ? { unusable: true } : {}),
            };
        expect({ name, ...seen }).toEqual({ name, ...lands });
      }
    });
  });
}
