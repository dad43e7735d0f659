// Domain configurations of the verification network, from UPSTREAMS (a JSON
// array) or UPSTREAMS_FILE (a path to one). Validated in full at startup and
// on reload: every problem is reported at once, by entry and field, and
// secret values never appear in a message.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../config.js';
import { errorCode, SecretFiles, type Report } from './config-files.js';
import type { EasyslipUpstreamConfig } from './easyslip/provider.js';
import type { KbankUpstreamConfig } from './kbank/provider.js';
import type { DomainConfig } from './provider.js';
import { bankProvider, bankProviders } from './registry.js';
import type { RdcwUpstreamConfig } from './rdcw/provider.js';
import type { ScbUpstreamConfig } from './scb/provider.js';
import type { Slip2goUpstreamConfig } from './slip2go/provider.js';
import type { SlipokUpstreamConfig } from './slipok/provider.js';

/** A domain of any registered provider; the built-in ones by their own types. */
export type UpstreamConfig =
  | KbankUpstreamConfig
  | ScbUpstreamConfig
  | SlipokUpstreamConfig
  | RdcwUpstreamConfig
  | EasyslipUpstreamConfig
  | Slip2goUpstreamConfig
  | SandboxUpstreamConfig
  | DomainConfig;
type SandboxUpstreamConfig = DomainConfig & { provider: 'sandbox' };
export type { KbankUpstreamConfig, RdcwUpstreamConfig, ScbUpstreamConfig, SlipokUpstreamConfig };

export class UpstreamConfigError extends ConfigError {
  override name = 'UpstreamConfigError';
}

/**
 * The configured domains, or [] when neither UPSTREAMS nor UPSTREAMS_FILE is
 * set (the caller then runs the sandbox). Throws UpstreamConfigError.
 */
export function loadUpstreamConfigs(env: NodeJS.ProcessEnv): UpstreamConfig[] {
  const inline = env.UPSTREAMS?.trim() || undefined;
  const file = env.UPSTREAMS_FILE?.trim() || undefined;
  if (inline && file) throw new UpstreamConfigError('set UPSTREAMS or UPSTREAMS_FILE, not both');
  if (inline) return parseUpstreamsJson(inline, { source: 'UPSTREAMS', baseDir: process.cwd() });
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UpstreamConfigError(`UPSTREAMS_FILE: cannot read ${JSON.stringify(file)} (${errorCode(err)})`);
    }
    return parseUpstreamsJson(text, { source: `UPSTREAMS_FILE (${file})`, baseDir: dirname(resolve(file)) });
  }
  return [];
}

export interface ParseOptions {
  /** Where the JSON came from, for messages. */
  source: string;
  /** Relative *File paths resolve against this directory. */
  baseDir: string;
}

function parseUpstreamsJson(text: string, opts: ParseOptions): UpstreamConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the JSON around the error, which may hold a secret.
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '');
    throw new UpstreamConfigError(`${opts.source} is not valid JSON${at ? ` (error near character ${at[1]})` : ''}`);
  }
  return parseUpstreamConfigs(json, opts);
}

/** Validates already-parsed JSON; reads the secret and TLS files it names. */
export function parseUpstreamConfigs(json: unknown, opts: ParseOptions): UpstreamConfig[] {
  if (!Array.isArray(json)) throw new UpstreamConfigError(`${opts.source} must be a JSON array of domain configurations`);
  if (json.length === 0) throw new UpstreamConfigError(`${opts.source} lists no domains; leave it unset to run the sandbox`);

  const problems: string[] = [];
  const configs: UpstreamConfig[] = [];
  json.forEach((entry: unknown, index) => {
    const label = entryLabel(opts.source, index, entry);
    const report = (field: string | null, message: string) => problems.push(`  ${label}${field ? ` ${field}` : ''}: ${message}`);
    const config = parseEntry(entry, opts.baseDir, report);
    if (config) configs.push(config);
  });

  const seen = new Map<string, number>();
  configs.forEach((c) => seen.set(c.name, (seen.get(c.name) ?? 0) + 1));
  for (const [name, count] of seen) {
    if (count > 1) problems.push(`  name ${JSON.stringify(name)} is used by ${count} entries; names must be unique`);
  }
  if (problems.length === 0 && !configs.some((c) => c.enabled)) {
    problems.push('  every domain has "enabled": false; enable at least one');
  }
  if (problems.length > 0) throw new UpstreamConfigError(`invalid ${opts.source}:\n${problems.join('\n')}`);
  return configs;
}

/** What is safe to log about a domain: no credentials, no keys. */
export function describeUpstreamConfig(c: UpstreamConfig): Record<string, unknown> {
  const base = { name: c.name, provider: c.provider, weight: c.weight, priority: c.priority ?? 1, enabled: c.enabled };
  return { ...base, ...bankProvider(c.provider)?.describe?.(c) };
}

// ---- one entry -------------------------------------------------------------

function parseEntry(entry: unknown, baseDir: string, report: Report): UpstreamConfig | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    report(null, 'must be an object such as {"name": "kbank-1", "provider": "kbank", ...}');
    return undefined;
  }
  const raw = entry as Record<string, unknown>;
  const provider = typeof raw.provider === 'string' ? bankProvider(raw.provider) : undefined;
  if (!provider) {
    const got = raw.provider === undefined ? 'it is missing' : `got ${JSON.stringify(raw.provider)}`;
    report('provider', `must be one of ${bankProviders().map((p) => `"${p.id}"`).join(', ')} (${got})`);
    return undefined;
  }
  const parsed = provider.schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) reportIssue(issue, raw, report);
    return undefined;
  }
  let problems = 0;
  const counting: Report = (field, message) => {
    problems++;
    report(field, message);
  };
  const config = provider.toConfig(parsed.data, { files: new SecretFiles(baseDir, counting), report: counting });
  return problems === 0 ? config : undefined;
}

function reportIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>, report: Report): void {
  const field = issue.path.length > 0 ? issue.path.join('.') : null;
  switch (issue.code) {
    case 'unrecognized_keys':
      report(field, `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`);
      return;
    case 'invalid_type': {
      const missing = valueAt(raw, issue.path) === undefined;
      report(field, missing ? 'is required' : `must be ${article(issue.expected)}`);
      return;
    }
    default:
      report(field, issue.message);
  }
}

function entryLabel(source: string, index: number, entry: unknown): string {
  const name = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>).name : undefined;
  const prefix = source.startsWith('UPSTREAMS_FILE') ? 'entry' : 'UPSTREAMS';
  return `${prefix}[${index}]${typeof name === 'string' && name !== '' ? ` (${JSON.stringify(name)})` : ''}`;
}

function valueAt(raw: Record<string, unknown>, path: readonly PropertyKey[]): unknown {
  let current: unknown = raw;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function article(expected: string): string {
  if (expected === 'object') return 'an object';
  if (expected === 'int') return 'a whole number';
  return `a ${expected}`;
}
