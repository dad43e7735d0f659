// What EasySlip and Slip2Go do beyond the slip APIs' shared conformance
// (slip-apis.test.ts): a slip picture sent as the multipart part each
// documents, a key refused on the verify and the quota call without the key
// in the message, and the quota read from their free info calls (EasySlip's
// null for a package without a limit). Real loopback HTTP against simulators
// written from the providers' docs apart from the adapters.
import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BankAdapter, SlipQuery } from '../../src/domain/ports/upstream.js';
import { parseUpstreamConfigs, type UpstreamConfig } from '../../src/upstream/config.js';
import { bankProvider } from '../../src/upstream/registry.js';
import type { AdapterResult } from '../../src/upstream/shared/outcomes.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import { withQr } from '../helpers/slip-query.js';

interface PictureCase {
  provider: 'easyslip' | 'slip2go';
  /** The field of the entry that holds the secret. */
  secretField: string;
  /** What an unlimited simulator reports as remaining. */
  unlimited: number | null;
}

const CASES: PictureCase[] = [
  { provider: 'easyslip', secretField: 'apiKey', unlimited: null },
  { provider: 'slip2go', secretField: 'apiSecret', unlimited: 1_000_000 },
];

type PictureAdapter = BankAdapter & { verifyPicture(bytes: Uint8Array, mimeType: string, requestId: string, signal: AbortSignal): Promise<AdapterResult> };

let counter = 0;
const slip = (): SlipQuery => withQr({ sendingBank: '004', transRef: `SLIPAPI${++counter}X${Date.now()}`, requestId: `req_${counter}` });
const budget = () => AbortSignal.timeout(5_000);
const png = async (text: string) => new Uint8Array(await QRCode.toBuffer(text, { type: 'png', width: 360, margin: 4 }));

function configOf(p: PictureCase, bank: SimulatedBank, overrides: Record<string, unknown> = {}): UpstreamConfig {
  const entry = { ...bankSimulator(p.provider).entry(bank.url, bank.credentials), name: `${p.provider}-a`, ...overrides };
  return parseUpstreamConfigs([entry], { source: 'UPSTREAMS', baseDir: process.cwd() })[0]!;
}

function adapterOf(config: UpstreamConfig): PictureAdapter {
  return bankProvider(config.provider)!.createAdapter(config, { bankOptions: {} }) as PictureAdapter;
}

describe.each(CASES)('$provider slip API', (p) => {
  let bank: SimulatedBank;
  let adapter: PictureAdapter;

  beforeEach(async () => {
    bank = await startSimulatedBank({ provider: p.provider, port: 0 });
    adapter = adapterOf(configOf(p, bank));
  });
  afterEach(async () => {
    await adapter?.close?.();
    await bank?.close();
  });

  it('sends a slip picture as the documented multipart part, with the same outcomes', async () => {
    const q = slip();
    const found = await adapter.verifyPicture(await png(q.qrcode), 'image/png', q.requestId, budget());
    expect(found).toMatchObject({ ok: true, transaction: { transRef: q.transRef, sendingBank: '004' } });
    expect(bank.state.calls.providerChecks).toBe(0);
    expect(await adapter.verifyPicture(await png('https://example.com/not-a-slip'), 'image/png', q.requestId, budget())).toMatchObject({ ok: false, kind: 'slip_not_found' });
    bank.state.behavior.answer = 'pending';
    expect(await adapter.verifyPicture(await png(q.qrcode), 'image/png', q.requestId, budget())).toMatchObject({ ok: false, kind: 'slip_not_found' });
  });

  it('marks a refused key as a domain that cannot serve, on the verify and the quota call, without the key in the message', async () => {
    const wrong = adapterOf(configOf(p, bank, { [p.secretField]: 'not-the-key', name: 'wrong' }));
    try {
      const result = await wrong.verify(slip(), budget());
      expect(result).toMatchObject({ ok: false, kind: 'upstream_unavailable', unusable: expect.any(String), upstream: 'wrong' });
      expect(JSON.stringify(result)).not.toContain('not-the-key');
      expect(await wrong.readQuota!(budget())).toMatchObject({ ok: false, unusable: expect.any(String) });
    } finally {
      await wrong.close?.();
    }
  });

  it('reads the quota without spending a verification, a package without a limit as the provider reports it', async () => {
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: p.unlimited });
    bank.state.behavior.quota = 3;
    await adapter.verify(slip(), budget());
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: 2 });
    expect(await adapter.readQuota!(budget())).toEqual({ ok: true, remaining: 2 });
    expect(bank.state.calls.verify).toBe(1);
  });
});
