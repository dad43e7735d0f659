// Scenario F: a flood of requests with bad API keys from one client address
// while merchants verify at a steady rate from another, against the same
// verifications with no flood (a quiet run as long as the flood took). What
// it shows: how much the database grew for the flood (the failed-
// authentication brake records one summary per address and minute instead
// of a row per refusal), and what the flood costs the valid verifications
// (their p99, and slipgate's CPU per valid success). slipgate runs behind a
// pretend proxy (TRUST_PROXY_HOPS=1), so X-Forwarded-For names the two
// addresses, as nginx would.
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BenchDatabase } from './engines.js';
import { databaseBytes, pgUrl } from './history.js';
import { runLoad, type LoadResult } from './load.js';
import type { Started } from './processes.js';

export const FLOOD_ENV = { TRUST_PROXY_HOPS: '1' };
const FLOODER = '203.0.113.66';
const MERCHANT = '198.51.100.10';
/** Well-formed keys that match no account, taken in turn (a guesser's keys). */
const BAD_KEYS = Array.from({ length: 1000 }, () => generateApiKey().key);

export interface FloodRun {
  engine: string;
  kind: 'quiet' | 'flood';
  durationSec: number;
  valid: LoadResult;
  /** The bad-key requests; null on the quiet run. */
  flood: LoadResult | null;
  /** slipgate's CPU seconds during the measured run (all threads). */
  cpu: number;
  /** Growth of the database (SQLite file after a checkpoint; PostgreSQL's pg_database_size) over the run; null where not measured. */
  dbGrowthBytes: number | null;
  /** Records of refused authentications (1020, 1021, 1024, and the brake's summaries) the run added; null where not counted. */
  refusalRecords: number | null;
}

/** The settings an operator gets, which F runs with. */
const DEFAULTS = loadConfig({});

const REFUSAL_KINDS = `('missing_api_key', 'invalid_api_key', 'ip_not_allowed', 'auth_rate_limited')`;

export interface FloodSpec {
  engine: string;
  db: BenchDatabase;
  keys: string[];
  /** Requests with bad keys the flood sends. */
  floodRequests: number;
  /** Seconds the flood lasts at most; undefined: until it sent floodRequests. */
  floodSeconds?: number;
  floodConnections: number;
  /** Valid verifications a second from the merchant's address. */
  validRate: number;
  warmupSec: number;
  /** slipgate (with FLOOD_ENV) and its bank, fresh for each run. */
  start: (tag: string) => Promise<{ target: Started; stop: () => Promise<void> }>;
  say: (line: string) => void;
}

/** The flood first (its length sets the quiet run's), then the quiet run; each in fresh processes. */
export async function measureFlood(spec: FloodSpec): Promise<FloodRun[]> {
  const flood = await run(spec, 'flood', 0);
  const quiet = await run(spec, 'quiet', Math.max(1, Math.round(flood.durationSec)));
  return [quiet, flood];
}

async function run(spec: FloodSpec, kind: FloodRun['kind'], quietSec: number): Promise<FloodRun> {
  const tag = `F-${kind}/${spec.engine}`;
  const before = { bytes: await settledBytes(spec.db), records: await refusalRecords(spec.db) };
  const { target, stop } = await spec.start(tag);
  let elapsedSec: number;
  let valid: LoadResult;
  let flood: LoadResult | null = null;
  let cpu: number;
  try {
    const merchants = (more: { durationSec: number; until?: Promise<unknown> }) =>
      runLoad({
        url: target.url,
        connections: 8,
        overallRate: spec.validRate,
        apiKeys: spec.keys,
        headers: { 'x-forwarded-for': MERCHANT },
        nextBody: () => `{"qrcode":"${sandboxQr()}"}`,
        ...more,
      });
    if (spec.warmupSec > 0) await merchants({ durationSec: spec.warmupSec });
    const cpuBefore = target.cpuSeconds();
    const startedAt = performance.now();
    if (kind === 'flood') {
      const body = `{"qrcode":"${sandboxQr()}"}`;
      const flooding = runLoad({
        url: target.url,
        connections: spec.floodConnections,
        durationSec: 0,
        amount: spec.floodRequests,
        apiKeys: BAD_KEYS,
        headers: { 'x-forwarded-for': FLOODER },
        nextBody: () => body,
        ...(spec.floodSeconds === undefined ? {} : { until: new Promise((resolve) => setTimeout(resolve, spec.floodSeconds! * 1000).unref()) }),
      });
      // Long enough for any flood: it ends when the flood does.
      [flood, valid] = await Promise.all([flooding, merchants({ durationSec: 86_400, until: flooding })]);
    } else {
      valid = await merchants({ durationSec: quietSec });
    }
    cpu = target.cpuSeconds() - cpuBefore;
    elapsedSec = (performance.now() - startedAt) / 1000;
  } finally {
    // Stopping writes the brake's last summaries: they count in the growth.
    await stop();
  }
  const after = { bytes: await settledBytes(spec.db), records: await refusalRecords(spec.db) };
  const growth = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  const result: FloodRun = {
    engine: spec.engine,
    kind,
    durationSec: elapsedSec,
    valid,
    flood,
    cpu,
    dbGrowthBytes: growth(after.bytes, before.bytes),
    refusalRecords: growth(after.records, before.records),
  };
  spec.say(
    `${tag}: ${result.durationSec.toFixed(0)} s; valid ${valid.successes} ok, p99 ${valid.latencyMs.p99.toFixed(2)} ms, ` +
      `CPU ${cpuPerValid(result).toFixed(3)} ms per valid success` +
      (flood ? `; flood ${flood.responses} answered (${statusList(flood)})` : '') +
      `; database ${result.dbGrowthBytes === null ? 'not measured' : `+${mb(result.dbGrowthBytes)} MB`}, ${result.refusalRecords ?? 'uncounted'} refusal records`,
  );
  return result;
}

/** The database's bytes with nothing pending: SQLite's WAL checkpointed into the file first. Null on MongoDB (FerretDB's sizes say nothing of MongoDB's). */
async function settledBytes(db: BenchDatabase): Promise<number | null> {
  if (db.engine === 'mongodb') return null;
  if (db.engine === 'sqlite') {
    const sqlite = new Database(db.url.replace(/^sqlite:/, ''));
    try {
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      sqlite.close();
    }
  }
  return databaseBytes(db);
}

/** Refusal records in the database (SQL engines); null on MongoDB. */
async function refusalRecords(db: BenchDatabase): Promise<number | null> {
  const sql = `SELECT count(*) AS n FROM request_errors WHERE kind IN ${REFUSAL_KINDS}`;
  if (db.engine === 'sqlite') {
    const sqlite = new Database(db.url.replace(/^sqlite:/, ''), { readonly: true });
    try {
      return (sqlite.prepare(sql).get() as { n: number }).n;
    } finally {
      sqlite.close();
    }
  }
  if (db.engine !== 'postgres') return null;
  const client = new pg.Client({ connectionString: pgUrl(db) });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

const cpuPerValid = (r: FloodRun) => (r.valid.successes > 0 ? (r.cpu * 1000) / r.valid.successes : Number.NaN);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
const statusList = (l: LoadResult) =>
  Object.entries(l.statusCodes)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');

/** Scenario F's section of the results file. */
export function floodSection(runs: FloodRun[]): string[] {
  if (runs.length === 0) return [];
  const out = [
    '## Scenario F: bad API keys flooding from one address, valid keys verifying from another',
    '',
    'slipgate behind a pretend proxy (`TRUST_PROXY_HOPS=1`, the addresses in X-Forwarded-For), default settings',
    `(\`AUTH_FAILURES_PER_IP_PER_MIN=${DEFAULTS.AUTH_FAILURES_PER_IP_PER_MIN}\`, \`AUTH_BRAKE_DELAY_MS=${DEFAULTS.AUTH_BRAKE_DELAY_MS}\`: past the limit each 429 is answered that late).`,
    'The flood sends well-formed keys that match no account, each of its connections sending the next request as soon as',
    'it has an answer, until it sent its count or its time is up; the valid verifications run at a fixed rate beside it, and again alone for as long',
    '(quiet). CPU per valid success is all of slipgate\'s CPU over the valid successes, so on the flood run it carries',
    'the flood\'s cost too. Database growth: the SQLite file after a WAL checkpoint, or pg_database_size, before and',
    'after each run; the flood\'s share is the flood run\'s growth less the quiet run\'s per valid success.',
    '',
    '| engine | run | seconds | valid ok | valid p50 ms | valid p99 ms | CPU ms / valid ok | flood answers | refusal records | database growth MB |',
    '|---|---|--:|--:|--:|--:|--:|---|--:|--:|',
    ...runs.map(
      (r) =>
        `| ${r.engine} | ${r.kind} | ${r.durationSec.toFixed(0)} | ${r.valid.successes} | ${r.valid.latencyMs.p50.toFixed(2)} | ${r.valid.latencyMs.p99.toFixed(2)} | ` +
        `${cpuPerValid(r).toFixed(3)} | ${r.flood ? `${r.flood.responses} (${statusList(r.flood)})` : '–'} | ${r.refusalRecords ?? '–'} | ${r.dbGrowthBytes === null ? '–' : mb(r.dbGrowthBytes)} |`,
    ),
    '',
  ];
  for (const engine of new Set(runs.map((r) => r.engine))) {
    const quiet = runs.find((r) => r.engine === engine && r.kind === 'quiet');
    const flood = runs.find((r) => r.engine === engine && r.kind === 'flood');
    if (!quiet || !flood) continue;
    // The valid verifications grow the database too: the quiet run's growth, scaled to the flood run's successes, is theirs.
    const theirs = quiet.dbGrowthBytes === null ? null : (quiet.dbGrowthBytes * flood.valid.successes) / Math.max(1, quiet.valid.successes);
    const growth = flood.dbGrowthBytes === null || theirs === null ? 'not measured' : `${mb(flood.dbGrowthBytes - theirs)} MB (${flood.refusalRecords} refusal records)`;
    out.push(
      `- ${engine}: ${flood.flood!.responses.toLocaleString('en-US')} bad-key requests grew the database by ${growth}; ` +
        `valid p99 ${(flood.valid.latencyMs.p99 / quiet.valid.latencyMs.p99).toFixed(2)}× the quiet run's, ` +
        `CPU per valid success ${(cpuPerValid(flood) / cpuPerValid(quiet)).toFixed(2)}× (target: within 1.10× for both).`,
    );
  }
  out.push('');
  return out;
}
