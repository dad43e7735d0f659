// What every bank provider must do, whatever its wire protocol: run against
// the provider's own simulator over real loopback HTTP, configured through
// UPSTREAMS parsing and built by the pool, exactly as slipgate runs it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlipQuery } from '../../src/domain/ports/upstream.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { parseUpstreamConfigs } from '../../src/upstream/config.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import type { BankProvider } from '../../src/upstream/provider.js';
import { sandboxTransRef, type SandboxOutcome } from '../../src/upstream/sandbox/transaction.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { withQr } from '../helpers/slip-query.js';
import { slipReference } from '../../src/domain/verify/slip-qr.js';

let counter = 0;
const query = (outcome: SandboxOutcome = 'success'): SlipQuery => withQr({ sendingBank: '004', transRef: sandboxTransRef(25_000, outcome, `c${++counter}`), requestId: `req_${counter}` });
const budget = () => AbortSignal.timeout(5_000);

export function adapterConformance(provider: BankProvider): void {
  describe(`${provider.id} provider conformance`, () => {
    let bank: SimulatedBank;
    let pool: UpstreamPool;

    beforeEach(async () => {
      bank = await startSimulatedBank({ provider: provider.id, port: 0 });
      const entry = { ...bankSimulator(provider.id).entry(bank.url, bank.credentials), name: `${provider.id}-a` };
      const configs = parseUpstreamConfigs([entry], { source: 'UPSTREAMS', baseDir: process.cwd() });
      pool = buildUpstream(configs, { breakerThreshold: Number.POSITIVE_INFINITY });
    });
    afterEach(async () => {
      await pool?.close();
      await bank?.close();
    });

    it('is configured from its simulator entry and answers a slip with the transaction the bank reports', async () => {
      const q = query();
      const result = await pool.verify(q, budget());
      expect(result).toMatchObject({ ok: true, upstream: `${provider.id}-a`, slip: { transactionId: slipReference(q.transRef), senderBankCode: '004', amount: 250 } });
      expect(bank.state.calls.verify).toBe(1);
    });

    it('reports a slip the bank does not know as not found', async () => {
      expect(await pool.verify(query('not-found'), budget())).toMatchObject({ ok: false, kind: 'slip_not_found', upstream: `${provider.id}-a` });
    });

    it('reports a bank error as an upstream error', async () => {
      expect(await pool.verify(query('error'), budget())).toMatchObject({ ok: false, kind: 'upstream_error', upstream: `${provider.id}-a` });
    });

    it('answers a timeout at the caller’s deadline when the bank never answers', async () => {
      expect(await pool.verify(query('timeout'), AbortSignal.timeout(300))).toMatchObject({ ok: false, kind: 'upstream_timeout' });
    });

    it('cannot be charged for an answer about another slip', async () => {
      bank.state.behavior.rewrite = (tx) => ({ ...tx, transRef: 'ANOTHERSLIP0001' });
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_mismatch' });
    });

    it('reports a bank that refuses connections as unavailable', async () => {
      await bank.close();
      expect(await pool.verify(query(), budget())).toMatchObject({ ok: false, kind: 'upstream_unavailable' });
    });
  });
}
