// RDCW Slip Verify (slip.rdcw.co.th): a slip API any shop can sign up for;
// a client id and secret (HTTP Basic), the slip's QR text per call, the
// quota reported with every answer.
import { z } from 'zod';
import { bankConfigOf, slipApiFields, text } from '../config-fields.js';
import { defineBankProvider, type SlipApiDomainConfig } from '../provider.js';
import { bankAdapterOptions } from '../shared/oauth-bank-upstream.js';
import { createRdcwResponder } from '../simulator/rdcw-responder.js';
import { RDCW_DEFAULT_BASE_URL } from './rdcw-protocol.js';
import { RdcwUpstream } from './rdcw-upstream.js';

export interface RdcwUpstreamConfig extends SlipApiDomainConfig {
  provider: 'rdcw';
  clientId: string;
  clientSecret: string;
}

const schema = z.strictObject({
  ...slipApiFields(RDCW_DEFAULT_BASE_URL),
  provider: z.literal('rdcw'),
  clientId: text.optional(),
  clientSecret: text.optional(),
  clientIdFile: text.optional(),
  clientSecretFile: text.optional(),
});

export const rdcwProvider = defineBankProvider<RdcwUpstreamConfig, z.output<typeof schema>>({
  id: 'rdcw',
  description: 'RDCW Slip Verify API (client id and secret, HTTP Basic)',
  schema,
  toConfig: (value, { files }) => ({
    ...bankConfigOf(value, 'rdcw'),
    clientId: files.secret(value, 'clientId', 'clientIdFile'),
    clientSecret: files.secret(value, 'clientSecret', 'clientSecretFile'),
    readsPictures: value.readsPictures,
  }),
  createAdapter: (config, ctx) => new RdcwUpstream(config, bankAdapterOptions(config, ctx.bankOptions)),
  describe: (config) => ({ baseUrl: config.baseUrl, readsPictures: config.readsPictures }),
  simulator: {
    credentials: { id: 'sim-rdcw-client-id', secret: 'sim-rdcw-client-secret' },
    responder: createRdcwResponder,
    entry: (url, credentials) => ({ name: 'rdcw-sim', provider: 'rdcw', baseUrl: url, clientId: credentials.id, clientSecret: credentials.secret }),
  },
});
