// `--repeat N`: D and A alternated N times on one engine. On a shared,
// noisy machine a single run's throughput says little; the medians of
// alternated rounds, and above all CPU per answer, say much more.
import { cpuPerOk, type Row } from './report.js';

const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const okPerSec = (r: Row) => r.load.successes / r.load.durationSec;

/** Markdown lines: each figure's median over the rounds, and the median of the per-round A/D ratios. */
export function repeatSummary(rows: Row[]): string[] {
  const rounds = [...new Set(rows.filter((r) => r.round !== undefined).map((r) => r.round!))];
  if (rounds.length === 0) return [];
  const pairs = rounds
    .map((round) => ({ a: rows.find((r) => r.round === round && r.scenario.id === 'A' && !r.revision), d: rows.find((r) => r.round === round && r.scenario.id === 'D') }))
    .filter((p): p is { a: Row; d: Row } => p.a !== undefined && p.d !== undefined);
  const a = pairs.map((p) => p.a);
  const d = pairs.map((p) => p.d);
  const f = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
  return [
    `## A against D, alternated (${pairs.length} rounds, medians)`,
    '',
    '| figure | A (slipgate) | D (pass-through) | median of A/D per round |',
    '|---|--:|--:|--:|',
    `| CPU ms per success, process under test | ${f(median(a.map((r) => cpuPerOk(r.cpu.target, r))))} | ${f(median(d.map((r) => cpuPerOk(r.cpu.target, r))))} | ${f(median(pairs.map((p) => cpuPerOk(p.a.cpu.target, p.a) / cpuPerOk(p.d.cpu.target, p.d))), 2)} |`,
    `| CPU ms per success, simulated bank | ${f(median(a.map((r) => cpuPerOk(r.cpu.bank, r))))} | ${f(median(d.map((r) => cpuPerOk(r.cpu.bank, r))))} | |`,
    `| successes per second | ${f(median(a.map(okPerSec)), 0)} | ${f(median(d.map(okPerSec)), 0)} | ${f(median(pairs.map((p) => okPerSec(p.a) / okPerSec(p.d))), 2)} |`,
    `| p50 latency ms | ${f(median(a.map((r) => r.load.latencyMs.p50)), 1)} | ${f(median(d.map((r) => r.load.latencyMs.p50)), 1)} | |`,
    '',
    ...againstSummary(rows, rounds),
  ];
}

/** --against: this tree's A against the other revision's A, round by round. */
function againstSummary(rows: Row[], rounds: number[]): string[] {
  const pairs = rounds
    .map((round) => ({ now: rows.find((r) => r.round === round && r.scenario.id === 'A' && !r.revision), then: rows.find((r) => r.round === round && r.revision) }))
    .filter((p): p is { now: Row; then: Row } => p.now !== undefined && p.then !== undefined);
  if (pairs.length === 0) return [];
  const f = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
  const cpu = (r: Row) => cpuPerOk(r.cpu.target, r);
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
