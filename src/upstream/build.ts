// Turns validated domain configurations into the pool the gateway talks to.
import type { KbankUpstreamConfig, SandboxUpstreamConfig, ScbUpstreamConfig, UpstreamConfig } from './config.js';
import { KbankUpstream } from './kbank/kbank-upstream.js';
import { UpstreamPool, type UpstreamPoolOptions } from './pool.js';
import { ScbUpstream } from './scb/scb-upstream.js';
import type { OAuthBankOptions } from './shared/oauth-bank-upstream.js';
import type { BankAdapter, BankAnswer, SlipQuery } from '../domain/ports/upstream.js';

export interface BuildUpstreamOptions extends Omit<UpstreamPoolOptions, 'createAdapter'> {
  /** Builds the built-in sandbox network for provider "sandbox" entries. */
  sandbox: (config: SandboxUpstreamConfig) => BankAdapter;
  /** Passed to every bank adapter (timeouts, clock). */
  bankOptions?: OAuthBankOptions;
}

export function buildUpstream(configs: UpstreamConfig[], opts: BuildUpstreamOptions): UpstreamPool {
  const { sandbox, bankOptions, ...poolOptions } = opts;
  return new UpstreamPool(configs, { ...poolOptions, createAdapter: (config) => createAdapter(config, sandbox, bankOptions) });
}

export function createAdapter(
  config: UpstreamConfig,
  sandbox: BuildUpstreamOptions['sandbox'],
  bankOptions: OAuthBankOptions = {},
): BankAdapter {
  switch (config.provider) {
    case 'kbank':
      return new KbankUpstream(config, domainOptions(config, bankOptions));
    case 'scb':
      return new ScbUpstream(config, domainOptions(config, bankOptions));
    case 'sandbox':
      return named(sandbox(config), config.name);
  }
}

/** A domain's own connection settings win over the shared ones. */
function domainOptions(config: KbankUpstreamConfig | ScbUpstreamConfig, shared: OAuthBankOptions): OAuthBankOptions {
  return config.idleSocketTimeoutMs === undefined ? shared : { ...shared, idleSocketTimeoutMs: config.idleSocketTimeoutMs };
}

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
