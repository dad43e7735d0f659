// Domain configurations of the verification network, from UPSTREAMS (a JSON
// array) or UPSTREAMS_FILE (a path to one). Validated in full at startup and
// on reload: every problem is reported at once, by entry and field, and
// secret values never appear in a message.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config.js';
import { errorCode, SecretFiles, type Report } from './config-files.js';
import { DEFAULT_IDLE_SOCKET_TIMEOUT_MS, type ClientTls } from './shared/bank-http.js';

export const UPSTREAM_PROVIDERS = ['kbank', 'scb', 'sandbox'] as const;
export type UpstreamProvider = (typeof UPSTREAM_PROVIDERS)[number];

interface DomainBase {
  name: string;
  /** Relative share of requests among enabled domains. */
  weight: number;
  enabled: boolean;
}

/** Connection settings of a real bank domain. */
interface BankDomainBase extends DomainBase {
  baseUrl: string;
  /** Idle keep-alive sockets close after this many ms; set on every parsed entry. */
  idleSocketTimeoutMs?: number;
}

export interface KbankUpstreamConfig extends BankDomainBase {
  provider: 'kbank';
  clientId: string;
  clientSecret: string;
  /** Mutual TLS: PEM contents read from certFile/keyFile/caFile. */
  tls?: ClientTls;
}

export interface ScbUpstreamConfig extends BankDomainBase {
  provider: 'scb';
  apiKey: string;
  apiSecret: string;
}

export interface SandboxUpstreamConfig extends DomainBase {
  provider: 'sandbox';
}

export type UpstreamConfig = KbankUpstreamConfig | ScbUpstreamConfig | SandboxUpstreamConfig;

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

export function parseUpstreamsJson(text: string, opts: ParseOptions): UpstreamConfig[] {
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
export function describeUpstreamConfig(c: UpstreamConfig): { name: string; provider: UpstreamProvider; baseUrl?: string; weight: number; enabled: boolean; mutualTls?: boolean } {
  const base = { name: c.name, provider: c.provider, weight: c.weight, enabled: c.enabled };
  if (c.provider === 'sandbox') return base;
  return { ...base, baseUrl: c.baseUrl, ...(c.provider === 'kbank' ? { mutualTls: c.tls !== undefined } : {}) };
}

// ---- one entry -------------------------------------------------------------

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const common = {
  name: z.string().regex(NAME, 'must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit'),
  weight: z.number().positive('must be greater than 0').max(1_000_000, 'must be at most 1000000').default(1),
  enabled: z.boolean().default(true),
};
const baseUrl = z.string().superRefine((value, ctx) => {
  const problem = baseUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const text = z.string().min(1, 'must not be empty');
// Below the idle timeouts banks and load balancers commonly use (5 s and up),
// so slipgate closes an idle socket before the bank does.
const idleSocketTimeoutMs = z
  .number()
  .int()
  .min(100, 'must be at least 100 (milliseconds)')
  .max(300_000, 'must be at most 300000 (5 minutes)')
  .default(DEFAULT_IDLE_SOCKET_TIMEOUT_MS);

const kbankSchema = z.strictObject({
  ...common,
  provider: z.literal('kbank'),
  baseUrl,
  idleSocketTimeoutMs,
  clientId: text.optional(),
  clientSecret: text.optional(),
  clientIdFile: text.optional(),
  clientSecretFile: text.optional(),
  tls: z.strictObject({ certFile: text, keyFile: text, caFile: text.optional() }).optional(),
});

const scbSchema = z.strictObject({
  ...common,
  provider: z.literal('scb'),
  baseUrl,
  idleSocketTimeoutMs,
  apiKey: text.optional(),
  apiSecret: text.optional(),
  apiKeyFile: text.optional(),
  apiSecretFile: text.optional(),
});

const sandboxSchema = z.strictObject({ ...common, provider: z.literal('sandbox') });

const SCHEMAS = { kbank: kbankSchema, scb: scbSchema, sandbox: sandboxSchema } as const;

function parseEntry(entry: unknown, baseDir: string, report: Report): UpstreamConfig | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    report(null, 'must be an object such as {"name": "kbank-1", "provider": "kbank", ...}');
    return undefined;
  }
  const raw = entry as Record<string, unknown>;
  if (!isProvider(raw.provider)) {
    const got = raw.provider === undefined ? 'it is missing' : `got ${JSON.stringify(raw.provider)}`;
    report('provider', `must be one of ${UPSTREAM_PROVIDERS.map((p) => `"${p}"`).join(', ')} (${got})`);
    return undefined;
  }
  const parsed = SCHEMAS[raw.provider].safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) reportIssue(issue, raw, report);
    return undefined;
  }
  let problems = 0;
  const counting: Report = (field, message) => {
    problems++;
    report(field, message);
  };
  const files = new SecretFiles(baseDir, counting);
  const value = parsed.data;
  let config: UpstreamConfig;
  switch (value.provider) {
    case 'kbank':
      config = {
        name: value.name,
        provider: 'kbank',
        weight: value.weight,
        enabled: value.enabled,
        baseUrl: trimSlash(value.baseUrl),
        idleSocketTimeoutMs: value.idleSocketTimeoutMs,
        clientId: files.secret(value, 'clientId', 'clientIdFile'),
        clientSecret: files.secret(value, 'clientSecret', 'clientSecretFile'),
      };
      if (value.tls) {
        if (!value.baseUrl.startsWith('https:')) counting('tls', 'needs an https:// baseUrl');
        const cert = files.pem('tls.certFile', value.tls.certFile);
        const key = files.pem('tls.keyFile', value.tls.keyFile);
        // caFile replaces the system CAs: only the bank's own CA is trusted.
        const ca = value.tls.caFile === undefined ? undefined : files.pem('tls.caFile', value.tls.caFile);
        config.tls = { cert, key, ...(ca === undefined ? {} : { ca }) };
      }
      break;
    case 'scb':
      config = {
        name: value.name,
        provider: 'scb',
        weight: value.weight,
        enabled: value.enabled,
        baseUrl: trimSlash(value.baseUrl),
        idleSocketTimeoutMs: value.idleSocketTimeoutMs,
        apiKey: files.secret(value, 'apiKey', 'apiKeyFile'),
        apiSecret: files.secret(value, 'apiSecret', 'apiSecretFile'),
      };
      break;
    case 'sandbox':
      config = { name: value.name, provider: 'sandbox', weight: value.weight, enabled: value.enabled };
      break;
  }
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

function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as https://openapi.bank.example';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https:// (or http:// for a local simulator)';
  if (url.username || url.password) return 'must not contain credentials; use the credential fields';
  if (url.search || url.hash) return 'must not have a query string or fragment';
  return undefined;
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

function isProvider(value: unknown): value is UpstreamProvider {
  return typeof value === 'string' && (UPSTREAM_PROVIDERS as readonly string[]).includes(value);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
