// Turns validated domain configurations into the pool the gateway talks to.
import type { SandboxUpstreamConfig, UpstreamConfig } from './config.js';
import { KbankUpstream } from './kbank/kbank-upstream.js';
import { UpstreamPool, type UpstreamPoolOptions } from './pool.js';
import { ScbUpstream } from './scb/scb-upstream.js';
import type { OAuthBankOptions } from './shared/oauth-bank-upstream.js';
import type { SlipQuery, Upstream, UpstreamResult } from './upstream.js';

export interface BuildUpstreamOptions extends Omit<UpstreamPoolOptions, 'createAdapter'> {
  /** Builds the built-in sandbox network for provider "sandbox" entries. */
  sandbox: (config: SandboxUpstreamConfig) => Upstream;
  /** Passed to every bank adapter (timeouts, clock). */
  bankOptions?: OAuthBankOptions;
  /** Wraps each domain's adapter (metrics). */
  wrapAdapter?: (adapter: Upstream, config: UpstreamConfig) => Upstream;
}

export function buildUpstream(configs: UpstreamConfig[], opts: BuildUpstreamOptions): UpstreamPool {
  const { sandbox, bankOptions, wrapAdapter, ...poolOptions } = opts;
  const build = (config: UpstreamConfig) => createAdapter(config, sandbox, bankOptions);
  return new UpstreamPool(configs, { ...poolOptions, createAdapter: wrapAdapter ? (config) => wrapAdapter(build(config), config) : build });
}

export function createAdapter(
  config: UpstreamConfig,
  sandbox: BuildUpstreamOptions['sandbox'],
  bankOptions: OAuthBankOptions = {},
): Upstream {
  switch (config.provider) {
    case 'kbank':
      return new KbankUpstream(config, bankOptions);
    case 'scb':
      return new ScbUpstream(config, bankOptions);
    case 'sandbox':
      return named(sandbox(config), config.name);
  }
}

/** Results must carry the configured domain name, whatever the factory named it. */
function named(inner: Upstream, name: string): Upstream {
  if (inner.name === name) return inner;
  return {
    name,
    async verify(query: SlipQuery, signal: AbortSignal): Promise<UpstreamResult> {
      const result = await inner.verify(query, signal);
      return result.ok ? { ...result, upstream: name } : { ...result, upstream: result.upstream === null ? null : name };
    },
    close: () => inner.close?.(),
  };
}
