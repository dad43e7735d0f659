// SlipOK (slipok.com): a slip API any shop can sign up for; a branch id and
// its API key, the slip's QR text per call, the quota from its own call.
import { z } from 'zod';
import { bankConfigOf, slipApiFields, text } from '../config-fields.js';
import { defineBankProvider, type SlipApiDomainConfig } from '../provider.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createSlipokResponder } from '../simulator/slipok-responder.js';
import { SLIPOK_DEFAULT_BASE_URL } from './slipok-protocol.js';
import { SlipokUpstream } from './slipok-upstream.js';

export interface SlipokUpstreamConfig extends SlipApiDomainConfig {
  provider: 'slipok';
  branchId: string;
  apiKey: string;
}

const schema = z.strictObject({
  ...slipApiFields(SLIPOK_DEFAULT_BASE_URL),
  provider: z.literal('slipok'),
  // SlipOK's branch ids are numbers (slipok-sdk checks /^\d+$/); it goes in the path.
  branchId: z.string().regex(/^\d{1,20}$/, 'must be the branch id SlipOK shows, digits only'),
  apiKey: text.optional(),
  apiKeyFile: text.optional(),
});

export const slipokProvider = defineBankProvider<SlipokUpstreamConfig, z.output<typeof schema>>({
  id: 'slipok',
  description: 'SlipOK slip API (branch id and API key)',
  schema,
  toConfig: (value, { files }) => ({
    ...bankConfigOf(value, 'slipok'),
    branchId: value.branchId,
    apiKey: files.secret(value, 'apiKey', 'apiKeyFile'),
    readsPictures: value.readsPictures,
  }),
  createAdapter: (config, ctx) => new SlipokUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl, branchId: config.branchId, readsPictures: config.readsPictures }),
  simulator: {
    credentials: { id: '1234', secret: 'sim-slipok-api-key' },
    responder: createSlipokResponder,
    entry: (url, credentials) => ({ name: 'slipok-sim', provider: 'slipok', baseUrl: url, branchId: credentials.id, apiKey: credentials.secret }),
  },
});
