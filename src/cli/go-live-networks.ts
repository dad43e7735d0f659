// `doctor --go-live`, one line per enabled domain (`network <name>`): a
// domain on a loopback or private address, or one carrying a simulator's
// built-in credentials, is a test setup, not a bank, and blocks; a slip API
// is asked its quota with its own free call, which proves the key works and
// says how many checks are left. Nothing is verified and nothing is spent.
import { lookup } from 'node:dns/promises';
import type { QuotaReading } from '../domain/ports/upstream.js';
import { addressClass, hostClass } from '../domain/webhooks/target-address.js';
import { createAdapter } from '../upstream/build.js';
import type { UpstreamConfig } from '../upstream/config.js';
import { bankProvider } from '../upstream/registry.js';
import { blocks, ok, type GoLiveCheck } from './go-live-check.js';

/** The quota call's budget, as a verification's. */
const QUOTA_CALL_MS = 10_000;

export function networkChecks(domains: readonly UpstreamConfig[]): Promise<GoLiveCheck[]> {
  return Promise.all(domains.filter((d) => d.provider !== 'sandbox').map(domainCheck));
}

async function domainCheck(domain: UpstreamConfig): Promise<GoLiveCheck> {
  const name = `network ${domain.name}`;
  const problems: { detail: string; fix: string }[] = [];
  const baseUrl = baseUrlOf(domain);
  const where = baseUrl ? await localAddress(baseUrl) : null;
  if (where) problems.push({ detail: `${baseUrl} is ${where}: a simulator or a test server, not the provider`, fix: `give ${domain.name} the provider's own address in UPSTREAMS_FILE (leave baseUrl out for its default)` });
  if (carriesSimulatorCredentials(domain)) problems.push({ detail: "it carries the simulator's built-in credentials", fix: `put the key the provider gave you in ${domain.name}'s entry of UPSTREAMS_FILE` });
  const quota = await askQuota(domain);
  if (quota.problem) problems.push(quota.problem);
  const detail = [...problems.map((p) => p.detail), quota.said].filter((d) => d !== undefined).join('; ');
  if (problems.length > 0) return blocks(name, detail, problems.map((p) => p.fix).join('; '));
  return ok(name, detail);
}

/** Every bank domain has one (the sandbox has none and is checked apart). */
function baseUrlOf(domain: UpstreamConfig): string | undefined {
  const url = (domain as { baseUrl?: unknown }).baseUrl;
  return typeof url === 'string' ? url : undefined;
}

/** "a loopback or private address (127.0.0.1)" when the URL's host is, or resolves to, one; null for a public one. */
async function localAddress(baseUrl: string): Promise<string | null> {
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return null; // the configuration check refused it already
  }
  if (hostClass(host) !== 'public') return `a loopback, private or link-local address (${host})`;
  // A name: what it resolves to here, where slipgate connects from.
  const found = await lookup(host, { all: true }).catch(() => []);
  const local = found.find((a) => addressClass(a.address) !== 'public');
  return local ? `${host}, which resolves to a loopback, private or link-local address (${local.address})` : null;
}

/** Whether any value of the entry is the simulator's secret (the entry `simulate-bank` prints). */
function carriesSimulatorCredentials(domain: UpstreamConfig): boolean {
  const secret = bankProvider(domain.provider)?.simulator?.credentials.secret;
  return secret !== undefined && Object.values(domain).some((v) => v === secret);
}

interface QuotaFinding {
  /** What the call said, for the detail (absent without a quota call). */
  said?: string;
  problem?: { detail: string; fix: string };
}

async function askQuota(domain: UpstreamConfig): Promise<QuotaFinding> {
  const adapter = createAdapter(domain, { bankOptions: {} });
  try {
    if (!adapter.readQuota) return { said: 'bank-direct: its credentials are first used by a verification' };
    let reading: QuotaReading;
    try {
      reading = await adapter.readQuota(AbortSignal.timeout(QUOTA_CALL_MS));
    } catch (err) {
      reading = { ok: false, message: (err as Error).message };
    }
    if (reading.ok) return { said: reading.remaining === null ? 'quota call answered: no limit' : `quota call answered: ${reading.remaining} checks left` };
    if (reading.unasked) return { said: `quota not read: ${reading.message}` };
    if (reading.unusable) return { problem: { detail: `the provider refused it: ${reading.unusable}`, fix: `check ${domain.name}'s key (and branch) in UPSTREAMS_FILE against the provider's dashboard; renew its package if it ran out` } };
    return { problem: { detail: `quota call failed: ${reading.message}`, fix: `check that this host reaches ${baseUrlOf(domain) ?? domain.name} (DNS, firewall, proxy)` } };
  } finally {
    adapter.close?.();
  }
}
