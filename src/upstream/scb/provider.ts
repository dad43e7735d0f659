// SCB's slip verification API: a token from the application key and
// secret, then a GET per slip.
import { z } from 'zod';
import { bankConfigOf, bankFields, text } from '../config-fields.js';
import { defineBankProvider, type BankDomainConfig } from '../provider.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createScbResponder } from '../simulator/scb-responder.js';
import { ScbUpstream } from './scb-upstream.js';

export interface ScbUpstreamConfig extends BankDomainConfig {
  provider: 'scb';
  apiKey: string;
  apiSecret: string;
}

const schema = z.strictObject({
  ...bankFields,
  provider: z.literal('scb'),
  apiKey: text.optional(),
  apiSecret: text.optional(),
  apiKeyFile: text.optional(),
  apiSecretFile: text.optional(),
});

export const scbProvider = defineBankProvider<ScbUpstreamConfig, z.output<typeof schema>>({
  id: 'scb',
  description: 'SCB slip verification API (OAuth2 token from an application key)',
  schema,
  toConfig: (value, { files }) => ({
    ...bankConfigOf(value, 'scb'),
    apiKey: files.secret(value, 'apiKey', 'apiKeyFile'),
    apiSecret: files.secret(value, 'apiSecret', 'apiSecretFile'),
  }),
  createAdapter: (config, ctx) => new ScbUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl }),
  simulator: {
    credentials: { id: 'sim-scb-api-key', secret: 'sim-scb-api-secret' },
    responder: createScbResponder,
    entry: (url, credentials) => ({ name: 'scb-sim', provider: 'scb', baseUrl: url, apiKey: credentials.id, apiSecret: credentials.secret }),
  },
});
