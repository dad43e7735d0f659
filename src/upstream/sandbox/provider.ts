// The built-in sandbox network: answers every slip from its transRef, with
// no bank at all (local runs, demos, `slipgate sandbox qr`).
import { z } from 'zod';
import type { BankAdapter, BankAnswer, SlipQuery } from '../../domain/ports/upstream.js';
import { domainConfigOf, domainFields } from '../config-fields.js';
import { defineBankProvider, type DomainConfig } from '../provider.js';
import { SandboxUpstream } from './sandbox-upstream.js';

const schema = z.strictObject({ ...domainFields, provider: z.literal('sandbox') });

export const sandboxProvider = defineBankProvider<DomainConfig, z.output<typeof schema>>({
  id: 'sandbox',
  description: 'built-in sandbox network (no bank; answers from the slip reference)',
  schema,
  toConfig: (value) => domainConfigOf(value, 'sandbox'),
  createAdapter: (config, ctx) => named(ctx.sandbox?.(config) ?? new SandboxUpstream(config.name), config.name),
});

/** Results must carry the configured domain name, whatever the factory named it. */
function named(inner: BankAdapter, name: string): BankAdapter {
  if (inner.name === name) return inner;
  return {
    name,
    async verify(query: SlipQuery, signal: AbortSignal): Promise<BankAnswer> {
      const result = await inner.verify(query, signal);
      return result.ok ? { ...result, upstream: name } : { ...result, upstream: result.upstream === null ? null : name };
    },
    close: () => inner.close?.(),
  };
}
