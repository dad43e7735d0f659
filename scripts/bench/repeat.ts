// `--repeat N`: D and A alternated N times, A on each engine chosen. On a shared,
// noisy machine a single run's throughput says little; the medians of
// alternated rounds, and above all CPU per answer, say much more.
import { cpuPerOk, type Row } from './report.js';
import { median, okPerSec } from './figures.js';



/** The cost targets the medians are held to (benchmark, not test). */
const COST_TARGETS = { aSqliteCpuVsD: 1.0, aPostgresVsSqlite: 0.8 };

const f = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const cpu = (r: Row) => cpuPerOk(r.cpu.target, r);
const verdict = (ok: boolean) => (ok ? '**met**' : '**MISSED**');

/** Markdown lines: per engine, each figure's median over the rounds and the median of the per-round A/D ratios; then the engines against each other. */
export function repeatSummary(rows: Row[]): string[] {
  const rounds = [...new Set(rows.filter((r) => r.round !== undefined).map((r) => r.round!))];
  if (rounds.length === 0) return [];
  const engines = [...new Set(rows.filter((r) => r.round !== undefined && r.scenario.id === 'A' && !r.revision).map((r) => r.engine))];
  return [...engines.flatMap((engine) => againstD(rows, rounds, engine)), ...enginesAgainstFirst(rows, rounds, engines), ...againstSummary(rows, rounds)];
}

function againstD(rows: Row[], rounds: number[], engine: string): string[] {
  const pairs = rounds
    .map((round) => ({ a: rows.find((r) => r.round === round && r.scenario.id === 'A' && r.engine === engine && !r.revision), d: rows.find((r) => r.round === round && r.scenario.id === 'D') }))
    .filter((p): p is { a: Row; d: Row } => p.a !== undefined && p.d !== undefined);
  const a = pairs.map((p) => p.a);
  const d = pairs.map((p) => p.d);
  return [
    `## A on ${engine} against D, alternated (${pairs.length} rounds, medians)`,
    '',
    '| figure | A (slipgate) | D (pass-through) | median of A/D per round |',
    '|---|--:|--:|--:|',
    `| CPU ms per success, process under test | ${f(median(a.map(cpu)))} | ${f(median(d.map(cpu)))} | ${f(median(pairs.map((p) => cpu(p.a) / cpu(p.d))), 2)} |`,
    `| CPU ms per success, simulated bank | ${f(median(a.map((r) => cpuPerOk(r.cpu.bank, r))))} | ${f(median(d.map((r) => cpuPerOk(r.cpu.bank, r))))} | |`,
    `| successes per second | ${f(median(a.map(okPerSec)), 0)} | ${f(median(d.map(okPerSec)), 0)} | ${f(median(pairs.map((p) => okPerSec(p.a) / okPerSec(p.d))), 2)} |`,
    `| p50 latency ms | ${f(median(a.map((r) => r.load.latencyMs.p50)), 1)} | ${f(median(d.map((r) => r.load.latencyMs.p50)), 1)} | |`,
    `| peak RSS MB | ${f(median(a.map((r) => r.peakRssBytes / 2 ** 20)), 0)} | ${f(median(d.map((r) => r.peakRssBytes / 2 ** 20)), 0)} | |`,
    '',
  ];
}

/** Several engines: A on each against A on the first, round by round (same round, same machine state). */
function enginesAgainstFirst(rows: Row[], rounds: number[], engines: string[]): string[] {
  const [first, ...others] = engines;
  if (first === undefined || others.length === 0) return [];
  const a = (round: number, engine: string) => rows.find((r) => r.round === round && r.scenario.id === 'A' && r.engine === engine && !r.revision);
  const out = [`## A on each engine against A on ${first}, same rounds (medians of per-round ratios)`, '', '| engine | successes per second | CPU ms per success |', '|---|--:|--:|'];
  for (const engine of others) {
    const pairs = rounds.map((round) => ({ other: a(round, engine), base: a(round, first) })).filter((p): p is { other: Row; base: Row } => p.other !== undefined && p.base !== undefined);
    out.push(`| ${engine} | ${f(median(pairs.map((p) => okPerSec(p.other) / okPerSec(p.base))), 2)}× | ${f(median(pairs.map((p) => cpu(p.other) / cpu(p.base))), 2)}× |`);
  }
  return [...out, ''];
}

/** The cost targets, judged on the medians of per-round ratios (lines for the report's Targets). */
export function repeatTargets(rows: Row[]): string[] {
  const rounds = [...new Set(rows.filter((r) => r.round !== undefined).map((r) => r.round!))];
  const a = (round: number, engine: string) => rows.find((r) => r.round === round && r.scenario.id === 'A' && r.engine === engine && !r.revision);
  const d = (round: number) => rows.find((r) => r.round === round && r.scenario.id === 'D');
  const ratios = (of: (round: number) => number) => rounds.map(of).filter(Number.isFinite);
  const out: string[] = [];
  const cpuVsD = ratios((round) => {
    const [s, b] = [a(round, 'sqlite'), d(round)];
    return s && b ? cpu(s) / cpu(b) : Number.NaN;
  });
  if (cpuVsD.length > 0) {
    const m = median(cpuVsD);
    out.push(`A on SQLite, CPU per success ≤ ${f(COST_TARGETS.aSqliteCpuVsD, 1)}× D's per request (median of ${cpuVsD.length} rounds): ${verdict(m <= COST_TARGETS.aSqliteCpuVsD)}: ${f(m, 2)}×`);
  }
  const pgVsSqlite = ratios((round) => {
    const [p, s] = [a(round, 'postgres'), a(round, 'sqlite')];
    return p && s ? okPerSec(p) / okPerSec(s) : Number.NaN;
  });
  if (pgVsSqlite.length > 0) {
    const m = median(pgVsSqlite);
    out.push(`A on PostgreSQL ≥ ${f(COST_TARGETS.aPostgresVsSqlite, 1)}× A on SQLite, successes per second in the same round (median of ${pgVsSqlite.length} rounds): ${verdict(m >= COST_TARGETS.aPostgresVsSqlite)}: ${f(m, 2)}×`);
  }
  return out;
}

/** --against: this tree's A against the other revision's A, round by round. */
function againstSummary(rows: Row[], rounds: number[]): string[] {
  const pairs = rounds
    .map((round) => ({ now: rows.find((r) => r.round === round && r.scenario.id === 'A' && !r.revision), then: rows.find((r) => r.round === round && r.revision) }))
    .filter((p): p is { now: Row; then: Row } => p.now !== undefined && p.then !== undefined);
  if (pairs.length === 0) return [];
  const figure = (name: string, of: (r: Row) => number, digits: number) =>
    `| ${name} | ${f(median(pairs.map((p) => of(p.now))), digits)} | ${f(median(pairs.map((p) => of(p.then))), digits)} | ${f(median(pairs.map((p) => of(p.now) / of(p.then))), 2)} |`;
  return [
    `## A, this tree against ${pairs[0]!.then.revision} (${pairs.length} rounds alternated, medians)`,
    '',
    `| figure | this tree | ${pairs[0]!.then.revision} | median of ratios per round |`,
    '|---|--:|--:|--:|',
    figure('CPU ms per success', cpu, 3),
    figure('successes per second', okPerSec, 0),
    figure('p50 latency ms', (r) => r.load.latencyMs.p50, 1),
    figure('peak RSS MB', (r) => r.peakRssBytes / 2 ** 20, 0),
    '',
  ];
}
