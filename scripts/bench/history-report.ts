// Scenario H in the results: CPU per verification with checks.duplicate on an
// account with a long history against an empty one, runs alternated, and the
// database's size with that history.
import type { Row } from './report.js';

/** Scenario H's database, per engine. */
export interface HistoryFacts {
  rows: number;
  bytes: number;
  seedSeconds: number;
  /** The duplicate check's lookup alone, ms per call (history.ts lookupMs). */
  lookupMs: { empty: number; full: number };
}

/** The issue's bound: a long history may cost at most this much more CPU per verification. */
const MAX_HISTORY_COST = 1.1;

interface Figures {
  cpuMs: number;
  p50: number;
  okPerSec: number;
}

interface Pair {
  engine: string;
  history: number;
  empty: Figures;
  full: Figures;
  /** Per round: CPU per verification with the history over the empty account's. */
  roundRatios: number[];
}

/** Sums over runs: total CPU over total successes, so no run weighs more than its answers. */
function figures(runs: Row[]): Figures {
  const ok = runs.reduce((n, r) => n + r.load.successes, 0);
  const seconds = runs.reduce((n, r) => n + r.load.durationSec, 0);
  const cpu = runs.reduce((n, r) => n + r.cpu.target, 0);
  const p50s = runs.map((r) => r.load.latencyMs.p50).sort((a, b) => a - b);
  return { cpuMs: ok > 0 ? (cpu * 1000) / ok : Number.NaN, p50: p50s[Math.floor(p50s.length / 2)] ?? Number.NaN, okPerSec: ok / seconds };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function pairs(rows: Row[]): Pair[] {
  const h = rows.filter((r) => r.scenario.id === 'H' && r.history !== undefined);
  return [...new Set(h.map((r) => r.engine))].flatMap((engine) => {
    const mine = h.filter((r) => r.engine === engine);
    const side = (runs: Row[], full: boolean) => runs.filter((r) => r.history!.stored > 0 === full);
    const full = side(mine, true);
    const empty = side(mine, false);
    if (full.length === 0 || empty.length === 0) return [];
    const rounds = [...new Set(mine.map((r) => r.history!.round))];
    const roundRatios = rounds.map((round) => {
      const these = mine.filter((r) => r.history!.round === round);
      return figures(side(these, true)).cpuMs / figures(side(these, false)).cpuMs;
    });
    return [{ engine, history: full[0]!.history!.stored, empty: figures(empty), full: figures(full), roundRatios }];
  });
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

/** Judged on the median of the per-round ratios: a round's runs are minutes apart, the rounds are not. */
export function historyTargets(rows: Row[]): string[] {
  return pairs(rows).map((p) => {
    const ratio = median(p.roundRatios);
    const verdict = ratio <= MAX_HISTORY_COST ? '**met**' : '**MISSED**';
    return (
      `H on ${p.engine}, CPU per verification with ${int(p.history)} stored ≤ ${MAX_HISTORY_COST} × an empty account's: ${verdict}: ` +
      `median of ${p.roundRatios.length} rounds' ratios ${ratio.toFixed(3)} (${pct(ratio)}; rounds ${p.roundRatios.map((r) => r.toFixed(3)).join(', ')}); ` +
      `all runs together ${p.full.cpuMs.toFixed(3)} against ${p.empty.cpuMs.toFixed(3)} ms`
    );
  });
}

export function historySummary(rows: Row[], history: Record<string, HistoryFacts>): string[] {
  const found = pairs(rows);
  if (found.length === 0) return [];
  const order = (engine: string) =>
    rows
      .filter((r) => r.scenario.id === 'H' && r.engine === engine && r.history !== undefined)
      .map((r) => `${r.history!.stored > 0 ? 'history' : 'empty'} (${r.history!.round})`)
      .join(', ');
  return [
    '## H: checks.duplicate against stored history (runs alternated, totals)',
    '',
    '| engine | stored verifications | database size | CPU ms/ok, empty account | CPU ms/ok, with history | ratio, all runs / median of rounds | lookup alone ms, empty / with history | p50 ms, empty / with history | ok/s, empty / with history |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...found.map((p) => {
      const h = history[p.engine];
      const lookup = h ? `${h.lookupMs.empty.toFixed(3)} / ${h.lookupMs.full.toFixed(3)}` : '–';
      return `| ${p.engine} | ${int(p.history)} | ${h ? `${(h.bytes / 2 ** 20).toFixed(0)} MB` : '–'} | ${p.empty.cpuMs.toFixed(3)} | ${p.full.cpuMs.toFixed(3)} | ${(p.full.cpuMs / p.empty.cpuMs).toFixed(3)} / ${median(p.roundRatios).toFixed(3)} | ${lookup} | ${p.empty.p50.toFixed(2)} / ${p.full.p50.toFixed(2)} | ${int(p.empty.okPerSec)} / ${int(p.full.okPerSec)} |`;
    }),
    '',
    '"lookup alone" is the duplicate check\'s store call by itself (a slip the account never verified), in the bench process before the runs: the median of 7 blocks of 200 calls, the two accounts taking turns.',
    '',
    ...found.map((p) => {
      const h = history[p.engine];
      return `- ${p.engine}: runs in this order (round in brackets): ${order(p.engine)}, each with fresh processes and a warm-up; the history was written through the driver in one transaction${h ? ` in ${h.seedSeconds.toFixed(0)} s` : ''}, each a different slip; every request asks for \`checks: {duplicate: true}\` with a slip not seen before.`;
    }),
    '',
  ];
}
