// A fake SCB on loopback: startFakeScb() and a matching domain configuration.
import type { ScbUpstreamConfig } from '../../src/upstream/config.js';
import { startFakeBank, type FakeBank, type FakeBankOptions } from './fake-bank.js';

const FAKE_SCB_CREDENTIALS = { id: 'scb-test-api-key', secret: 'scb-test-api-secret' };

export interface FakeScb extends FakeBank {
  /** A domain configuration pointing at this fake. */
  config(name?: string, extra?: Partial<ScbUpstreamConfig>): ScbUpstreamConfig;
}

export async function startFakeScb(opts: FakeBankOptions = {}): Promise<FakeScb> {
  const bank = await startFakeBank('scb', FAKE_SCB_CREDENTIALS, opts);
  return {
    ...bank,
    config: (name = 'scb-test', extra = {}) => ({
      name,
      provider: 'scb',
      baseUrl: bank.url,
      apiKey: bank.credentials.id,
      apiSecret: bank.credentials.secret,
      weight: 1,
      enabled: true,
      ...extra,
    }),
  };
}
