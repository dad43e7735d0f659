// A fake KBank on loopback: startFakeKbank() and a matching domain configuration.
import type { KbankUpstreamConfig } from '../../src/upstream/config.js';
import { startFakeBank, type FakeBank, type FakeBankOptions } from './fake-bank.js';

/** A colon and URL-special characters make sure Basic auth is encoded right. */
export const FAKE_KBANK_CREDENTIALS = { id: 'kbank-test-client', secret: 'kb:s3cret/+= ok' };

export interface FakeKbank extends FakeBank {
  /** A domain configuration pointing at this fake. */
  config(name?: string, extra?: Partial<KbankUpstreamConfig>): KbankUpstreamConfig;
}

export async function startFakeKbank(opts: FakeBankOptions = {}): Promise<FakeKbank> {
  const bank = await startFakeBank('kbank', FAKE_KBANK_CREDENTIALS, opts);
  return {
    ...bank,
    config: (name = 'kbank-test', extra = {}) => ({
      name,
      provider: 'kbank',
      baseUrl: bank.url,
      clientId: bank.credentials.id,
      clientSecret: bank.credentials.secret,
      weight: 1,
      enabled: true,
      ...extra,
    }),
  };
}
