// Turns validated domain configurations into the pool the gateway talks to,
// each adapter built by its provider's descriptor (registry.ts).
import type { BankAdapter } from '../domain/ports/upstream.js';
import type { UpstreamConfig } from './config.js';
import { UpstreamPool, type UpstreamPoolOptions } from './pool.js';
import type { AdapterContext } from './provider.js';
import { bankProvider } from './registry.js';
import type { OAuthBankOptions } from './shared/oauth-bank-upstream.js';

export interface BuildUpstreamOptions extends Omit<UpstreamPoolOptions, 'createAdapter'> {
  /** Builds the sandbox network for provider "sandbox" entries (default: the built-in one). */
  sandbox?: AdapterContext['sandbox'];
  /** Passed to every bank adapter (timeouts, clock). */
  bankOptions?: OAuthBankOptions;
}

export function buildUpstream(configs: UpstreamConfig[], opts: BuildUpstreamOptions = {}): UpstreamPool {
  const { sandbox, bankOptions = {}, ...poolOptions } = opts;
  const ctx: AdapterContext = { bankOptions, ...(sandbox ? { sandbox } : {}) };
  return new UpstreamPool(configs, { ...poolOptions, createAdapter: (config) => createAdapter(config, ctx) });
}

/** One domain's adapter, built by its provider's descriptor (the pool's, and `doctor --go-live`'s quota call). */
export function createAdapter(config: UpstreamConfig, ctx: AdapterContext): BankAdapter {
  const provider = bankProvider(config.provider);
  // Configurations come from parseUpstreamConfigs, which knows only registered providers.
  if (!provider) throw new Error(`no bank provider "${config.provider}" is registered`);
  return provider.createAdapter(config, ctx);
}
