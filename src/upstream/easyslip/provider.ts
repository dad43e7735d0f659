// EasySlip API v2 (https://easyslip.com): a slip API any shop can sign up
// for online; one bearer key per API branch, quota per branch.
import { z } from 'zod';
import { bankConfigOf, slipApiFields, text } from '../config-fields.js';
import { defineBankProvider, type SlipApiDomainConfig } from '../provider.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createEasyslipResponder } from '../simulator/easyslip-responder.js';
import { EASYSLIP_DEFAULT_BASE_URL } from './easyslip-protocol.js';
import { EasyslipUpstream } from './easyslip-upstream.js';

export interface EasyslipUpstreamConfig extends SlipApiDomainConfig {
  provider: 'easyslip';
  apiKey: string;
}

const schema = z.strictObject({
  ...slipApiFields(EASYSLIP_DEFAULT_BASE_URL),
  provider: z.literal('easyslip'),
  apiKey: text.optional(),
  apiKeyFile: text.optional(),
});

export const easyslipProvider = defineBankProvider<EasyslipUpstreamConfig, z.output<typeof schema>>({
  id: 'easyslip',
  description: 'EasySlip slip API v2 (bearer API key)',
  schema,
  toConfig: (value, { files }) => ({
    ...bankConfigOf(value, 'easyslip'),
    readsPictures: value.readsPictures,
    apiKey: files.secret(value, 'apiKey', 'apiKeyFile'),
  }),
  createAdapter: (config, ctx) => new EasyslipUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl, readsPictures: config.readsPictures }),
  simulator: {
    credentials: { id: 'sim-easyslip-branch', secret: '5f0c7e2a-8d41-4b6e-9a3c-2e7d1b9f4c60' },
    responder: createEasyslipResponder,
    entry: (url, credentials) => ({ name: 'easyslip-sim', provider: 'easyslip', baseUrl: url, apiKey: credentials.secret }),
  },
});
