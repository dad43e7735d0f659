// Scenario H in the results: CPU per verification with checks.duplicate on an
// account with a long history against an empty one, runs alternated, and the
// database's size with that history.
import type { Row } from './report.js';

/** The issue's bound: a long history may cost at most this much more CPU per verification. */
const MAX_HISTORY_COST = 1.1;

interface Pair {
  engine: string;
  history: number;
  empty: { cpuMs: number; p50: number; okPerSec: number };
  full: { cpuMs: number; p50: number; okPerSec: number };
}

/** Sums over the alternated runs: total CPU over total successes, so no run weighs more than its answers. */
function pairs(rows: Row[]): Pair[] {
  const h = rows.filter((r) => r.scenario.id === 'H' && r.history !== undefined);
  return [...new Set(h.map((r) => r.engine))].flatMap((engine) => {
    const of = (full: boolean) => h.filter((r) => r.engine === engine && (r.history! > 0) === full);
    const figures = (runs: Row[]) => {
      const ok = runs.reduce((n, r) => n + r.load.successes, 0);
      const seconds = runs.reduce((n, r) => n + r.load.durationSec, 0);
      const cpu = runs.reduce((n, r) => n + r.cpu.target, 0);
      const p50s = runs.map((r) => r.load.latencyMs.p50).sort((a, b) => a - b);
      return { cpuMs: ok > 0 ? (cpu * 1000) / ok : Number.NaN, p50: p50s[Math.floor(p50s.length / 2)] ?? Number.NaN, okPerSec: ok / seconds };
    };
    const full = of(true);
    const empty = of(false);
    if (full.length === 0 || empty.length === 0) return [];
    return [{ engine, history: full[0]!.history!, empty: figures(empty), full: figures(full) }];
  });
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

export function historyTargets(rows: Row[]): string[] {
  return pairs(rows).map((p) => {
    const ratio = p.full.cpuMs / p.empty.cpuMs;
    const verdict = ratio <= MAX_HISTORY_COST ? '**met**' : '**MISSED**';
    return `H on ${p.engine}, CPU per verification with ${int(p.history)} stored ≤ ${MAX_HISTORY_COST} × an empty account's: ${verdict}: ${p.full.cpuMs.toFixed(3)} against ${p.empty.cpuMs.toFixed(3)} ms (${pct(ratio)})`;
  });
}

export function historySummary(rows: Row[], history: Record<string, { rows: number; bytes: number; seedSeconds: number }>): string[] {
  const found = pairs(rows);
  if (found.length === 0) return [];
  const order = (engine: string) =>
    rows
      .filter((r) => r.scenario.id === 'H' && r.engine === engine)
      .map((r) => (r.history! > 0 ? 'history' : 'empty'))
      .join(', ');
  return [
    '## H: checks.duplicate against stored history (runs alternated, totals)',
    '',
    '| engine | stored verifications | database size | CPU ms/ok, empty account | CPU ms/ok, with history | ratio | p50 ms, empty / with history | ok/s, empty / with history |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    ...found.map((p) => {
      const h = history[p.engine];
      return `| ${p.engine} | ${int(p.history)} | ${h ? `${(h.bytes / 2 ** 20).toFixed(0)} MB` : '–'} | ${p.empty.cpuMs.toFixed(3)} | ${p.full.cpuMs.toFixed(3)} | ${(p.full.cpuMs / p.empty.cpuMs).toFixed(3)} | ${p.empty.p50.toFixed(2)} / ${p.full.p50.toFixed(2)} | ${int(p.empty.okPerSec)} / ${int(p.full.okPerSec)} |`;
    }),
    '',
    ...found.map((p) => {
      const h = history[p.engine];
      return `- ${p.engine}: runs in this order: ${order(p.engine)} (each with fresh processes and a warm-up); the history was written through the driver in one transaction${h ? ` in ${h.seedSeconds.toFixed(0)} s` : ''}, each a different slip; every request asks for \`checks: {duplicate: true}\` with a slip not seen before.`;
    }),
    '',
  ];
}
