// Slip2Go (https://slip2go.com): a slip API any shop can sign up for
// online; one secret per shop, a monthly package of verifications.
import { z } from 'zod';
import { bankConfigOf, slipApiFields, text } from '../config-fields.js';
import { defineBankProvider, type SlipApiDomainConfig } from '../provider.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createSlip2goResponder } from '../simulator/slip2go-responder.js';
import { SLIP2GO_DEFAULT_BASE_URL } from './slip2go-protocol.js';
import { Slip2goUpstream } from './slip2go-upstream.js';

export interface Slip2goUpstreamConfig extends SlipApiDomainConfig {
  provider: 'slip2go';
  apiSecret: string;
}

const schema = z.strictObject({
  ...slipApiFields(SLIP2GO_DEFAULT_BASE_URL),
  provider: z.literal('slip2go'),
  apiSecret: text.optional(),
  apiSecretFile: text.optional(),
});

export const slip2goProvider = defineBankProvider<Slip2goUpstreamConfig, z.output<typeof schema>>({
  id: 'slip2go',
  description: 'Slip2Go slip API (bearer API secret)',
  schema,
  toConfig: (value, { files }) => ({
    ...bankConfigOf(value, 'slip2go'),
    readsPictures: value.readsPictures,
    apiSecret: files.secret(value, 'apiSecret', 'apiSecretFile'),
  }),
  createAdapter: (config, ctx) => new Slip2goUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl, readsPictures: config.readsPictures }),
  simulator: {
    credentials: { id: 'sim-slip2go-shop', secret: 'sim-slip2go-api-secret' },
    responder: createSlip2goResponder,
    // Slip2Go's base address ends in /api, as the public one does.
    entry: (url, credentials) => ({ name: 'slip2go-sim', provider: 'slip2go', baseUrl: `${url}/api`, apiSecret: credentials.secret }),
  },
});
