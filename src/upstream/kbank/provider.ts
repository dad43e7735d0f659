// KBank's slip verification API: OAuth2 client credentials (optionally over
// mutual TLS), then a JSON POST per slip.
import { z } from 'zod';
import { bankConfigOf, bankFields, text } from '../config-fields.js';
import { defineBankProvider, type BankDomainConfig } from '../provider.js';
import type { ClientTls } from '../shared/bank-http.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createKbankResponder } from '../simulator/kbank-responder.js';
import { KbankUpstream } from './kbank-upstream.js';

export interface KbankUpstreamConfig extends BankDomainConfig {
  provider: 'kbank';
  clientId: string;
  clientSecret: string;
  /** Mutual TLS: PEM contents read from certFile/keyFile/caFile. */
  tls?: ClientTls;
}

const schema = z.strictObject({
  ...bankFields,
  provider: z.literal('kbank'),
  clientId: text.optional(),
  clientSecret: text.optional(),
  clientIdFile: text.optional(),
  clientSecretFile: text.optional(),
  tls: z.strictObject({ certFile: text, keyFile: text, caFile: text.optional() }).optional(),
});

export const kbankProvider = defineBankProvider<KbankUpstreamConfig, z.output<typeof schema>>({
  id: 'kbank',
  description: 'KBank slip verification API (OAuth2, optional mutual TLS)',
  schema,
  toConfig(value, { files, report }) {
    const config: KbankUpstreamConfig = {
      ...bankConfigOf(value, 'kbank'),
      clientId: files.secret(value, 'clientId', 'clientIdFile'),
      clientSecret: files.secret(value, 'clientSecret', 'clientSecretFile'),
    };
    if (value.tls) {
      if (!value.baseUrl.startsWith('https:')) report('tls', 'needs an https:// baseUrl');
      const cert = files.pem('tls.certFile', value.tls.certFile);
      const key = files.pem('tls.keyFile', value.tls.keyFile);
      // caFile replaces the system CAs: only the bank's own CA is trusted.
      const ca = value.tls.caFile === undefined ? undefined : files.pem('tls.caFile', value.tls.caFile);
      config.tls = { cert, key, ...(ca === undefined ? {} : { ca }) };
    }
    return config;
  },
  createAdapter: (config, ctx) => new KbankUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl, mutualTls: config.tls !== undefined }),
  simulator: {
    credentials: { id: 'sim-kbank-client-id', secret: 'sim-kbank-client-secret' },
    responder: createKbankResponder,
    entry: (url, credentials) => ({ name: 'kbank-sim', provider: 'kbank', baseUrl: url, clientId: credentials.id, clientSecret: credentials.secret }),
  },
});
