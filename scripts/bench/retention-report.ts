// Scenario R in the results: each run (the pass and the quiet one, by
// round), then per engine the pass's time and what it cost the verifications
// beside it, as medians of the per-round ratios.
import { cpuPerSuccess, type RetentionRun } from './retention.js';
import { median } from './figures.js';

const f = (n: number | null | undefined, digits: number) => (n !== null && n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '–');
const int = (n: number | null) => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));
const dbCpuPerOk = (r: RetentionRun) => (r.load.successes > 0 ? (r.cpu.db * 1000) / r.load.successes : Number.NaN);

/** Scenario R's section of the results file. */
export function retentionSection(runs: RetentionRun[]): string[] {
  if (runs.length === 0) return [];
  return [
    '## Scenario R: the server\'s retention pass under load',
    '',
    'Before each pass run, old verifications of one account (created more than `RETENTION_DAYS=30` days ago, with',
    'a full bank answer each) are written straight into the database; slipgate then starts on it and runs its own',
    'startup pass (the lease holder\'s, batch by batch beside the verifications, as every `RETENTION_INTERVAL_MINUTES`),',
    'while valid keys verify at a fixed rate from the moment it is ready until the pass has ended (at least the',
    'scenario\'s length). The quiet run is the same load as long on the same database with `RETENTION_DAYS=off`.',
    'Neither run is warmed up, so a cold start falls on both alike. Pass seconds: from the server\'s lease start (the',
    'pass begins right after it) to the pass\'s log line, its purge (SQLite WAL checkpoint, PostgreSQL VACUUM)',
    'included. "under load" is how much of the pass the load overlapped. CPU per success is all of slipgate\'s CPU',
    'over the successes, so on the pass run it carries the pass\'s cost too.',
    '',
    '| engine | round | run | load s | records redacted | pass s | redacted/s | under load s | ok | not ok | p50 ms | p99 ms | max ms | CPU ms / ok | db CPU ms / ok | loop p99 ms | loop max ms |',
    '|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...runs.map(
      (r) =>
        `| ${r.engine} | ${r.round} | ${r.kind} | ${f(r.load.durationSec, 0)} | ${int(r.redacted)} | ${f(r.passSec, 1)} | ${r.redacted !== null && r.passSec ? int(r.redacted / r.passSec) : '–'} | ${f(r.overlapSec, 1)} | ` +
        `${int(r.load.successes)} | ${int(r.load.failures + r.load.errors)} | ${f(r.load.latencyMs.p50, 2)} | ${f(r.load.latencyMs.p99, 2)} | ${f(r.load.latencyMs.max, 1)} | ` +
        `${f(cpuPerSuccess(r), 3)} | ${f(dbCpuPerOk(r), 3)} | ${f(r.eventLoop?.p99Ms, 1)} | ${f(r.eventLoop?.maxMs, 1)} |`,
    ),
    '',
    ...[...new Set(runs.map((r) => r.engine))].flatMap((engine) => summary(runs.filter((r) => r.engine === engine), engine)),
  ];
}

function summary(runs: RetentionRun[], engine: string): string[] {
  const rounds = [...new Set(runs.map((r) => r.round))];
  const pairs = rounds
    .map((round) => ({ pass: runs.find((r) => r.round === round && r.kind === 'pass'), quiet: runs.find((r) => r.round === round && r.kind === 'quiet') }))
    .filter((p): p is { pass: RetentionRun; quiet: RetentionRun } => p.pass !== undefined && p.quiet !== undefined);
  if (pairs.length === 0) return [];
  const passes = pairs.map((p) => p.pass);
  const ratio = (of: (r: RetentionRun) => number) => f(median(pairs.map((p) => of(p.pass) / of(p.quiet))), 2);
  const redacted = median(passes.map((r) => r.redacted ?? Number.NaN));
  const under = passes.every((r) => r.overlapSec !== null && r.passSec !== null && r.overlapSec >= 0.9 * r.passSec);
  return [
    `- ${engine}: the pass redacted ${int(redacted)} records in ${f(median(passes.map((r) => r.passSec ?? Number.NaN)), 1)} s (median of ${pairs.length}); ` +
      `beside it, verification p99 ${f(median(passes.map((r) => r.load.latencyMs.p99)), 2)} ms against ${f(median(pairs.map((p) => p.quiet.load.latencyMs.p99)), 2)} ms quiet ` +
      `(${ratio((r) => r.load.latencyMs.p99)}× per round), p50 ${ratio((r) => r.load.latencyMs.p50)}×, CPU per success ${ratio(cpuPerSuccess)}×` +
      (under ? '.' : '; **the load did not overlap most of the pass** (a short pass is mostly over before the load starts): these are not figures under a pass.'),
    '',
  ];
}
