// What a bank provider supplies: one descriptor in its own folder
// (src/upstream/<provider>/provider.ts) and one line in registry.ts. Config
// parsing, the pool, `slipgate simulate-bank` and the adapter conformance
// tests all read the registry, so nothing else names a provider.
import type { RequestListener } from 'node:http';
import type { z } from 'zod';
import type { BankAdapter } from '../domain/ports/upstream.js';
import type { Report, SecretFiles } from './config-files.js';
import type { OAuthBankOptions } from './shared/oauth-bank-upstream.js';
import type { BankCredentials, SimulatedBankState } from './simulator/bank-state.js';

/** What every domain entry of UPSTREAMS has, whatever its provider. */
export interface DomainConfig {
  name: string;
  provider: string;
  /** Relative share of requests among the usable domains of the best priority. */
  weight: number;
  /** 1 (absent: 1) is tried first; a higher number serves only when every domain above it cannot. */
  priority?: number;
  enabled: boolean;
}

/** Connection settings of a real bank domain. */
export interface BankDomainConfig extends DomainConfig {
  baseUrl: string;
  /** Idle keep-alive sockets close after this many ms; set on every parsed entry. */
  idleSocketTimeoutMs?: number;
}

/** A slip API's domain (EasySlip, Slip2Go…): a bank domain that may also read pictures. */
export interface SlipApiDomainConfig extends BankDomainConfig {
  /** The pool may send this domain a slip picture whose QR slipgate cannot read. */
  readsPictures: boolean;
}

interface ConfigContext {
  /** Reads the secret and certificate files an entry names. */
  files: SecretFiles;
  report: Report;
}

export interface AdapterContext {
  /** Shared by every bank adapter (timeouts, clock); a domain's own settings win. */
  bankOptions: OAuthBankOptions;
  /** Builds the built-in sandbox network (tests inject their own). */
  sandbox?: (config: DomainConfig) => BankAdapter;
}

export interface BankSimulator {
  /** Not secrets: the simulator is for local use only. */
  credentials: BankCredentials;
  /** Speaks the provider's real protocol, answering from the shared state. */
  responder(state: SimulatedBankState): RequestListener;
  /** The UPSTREAMS entry that points slipgate at a running simulator. */
  entry(url: string, credentials: BankCredentials): Record<string, unknown>;
}

export interface BankProvider<C extends DomainConfig = DomainConfig, V = unknown> {
  /** The `provider` value of an UPSTREAMS entry. */
  id: string;
  /** One line, for `--help` and logs. */
  description: string;
  /** The whole entry, strict (unknown fields are errors); build it from config-fields.ts. */
  schema: z.ZodType<V>;
  /** Turns a valid entry into the domain's configuration, reading the files it names. */
  toConfig(value: V, ctx: ConfigContext): C;
  createAdapter(config: C, ctx: AdapterContext): BankAdapter;
  /** What is safe to log about a domain beyond name, provider, weight and enabled. */
  describe?(config: C): Record<string, unknown>;
  simulator?: BankSimulator;
}

/**
 * Keeps a descriptor's own types while it is written, and erases them for
 * the registry, which handles every provider alike.
 */
export function defineBankProvider<C extends DomainConfig, V>(provider: BankProvider<C, V>): BankProvider {
  return provider as unknown as BankProvider;
}
