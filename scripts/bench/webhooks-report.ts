// A+hooks and W in the results: each run's deliveries, then per engine A's
// p99 with the delivery worker busy against A's without endpoints (same
// rounds, medians of the per-round ratios), and the issue's targets (#34).
import { cpuPerOk, type Row } from './report.js';
import { TARGET_DELIVERIES_PER_SEC } from './webhooks.js';

/** The issue's bound (#34): delivery moves A's p99 by at most 10%. */
const MAX_P99_MOVE = 1.1;

const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const f = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const cpu = (r: Row) => cpuPerOk(r.cpu.target + r.cpu.db, r);
const okPerSec = (r: Row) => r.load.successes / r.load.durationSec;
const p99 = (r: Row) => r.load.latencyMs.p99;

const engines = (rows: Row[]) => [...new Set(rows.map((r) => r.engine))];

/** A+hooks and A of this tree on the same engine, round by round. */
function pairs(rows: Row[], engine: string): { hooks: Row; plain: Row }[] {
  return rows
    .filter((r) => r.scenario.id === 'A+hooks' && r.engine === engine)
    .flatMap((hooks) => {
      const plain = rows.find((r) => r.scenario.id === 'A' && !r.revision && !r.profiled && r.engine === engine && r.round === hooks.round);
      return plain ? [{ hooks, plain }] : [];
    });
}

const withDeliveries = (rows: Row[]) => rows.filter((r) => r.deliveries !== undefined && !r.revision);

/** Markdown: the deliveries of every run with endpoints, then A+hooks against A per engine. */
export function webhookSection(rows: Row[]): string[] {
  const runs = withDeliveries(rows);
  if (runs.length === 0) return [];
  const out = [
    '## Webhook delivery: A+hooks and W',
    '',
    'For these runs every bench account has one webhook endpoint (`verification.succeeded`) at a receiver in the bench process',
    '(http://127.0.0.1, allowed for a loopback host), which checks each signature with the SDK\'s `verifyWebhookSignature` and',
    'answers 200 at once; the endpoints are removed after the run. The warm-up\'s events are delivered before the measured run',
    'starts. Events: the run\'s successes. Lag: from the event\'s `createdAt` to its arrival. Delivered/s: every delivery from the',
    'run\'s start to the last one\'s arrival, over that time (requests still in flight when the load stopped are settled and',
    'delivered too, so deliveries may exceed events). W offers a fixed rate; A+hooks is A (closed loop) with the delivery worker busy.',
    '',
    '| run | engine | events | events/s | delivered during the load | backlog at the end | delivered/s | drain s | lag p50 ms | lag p99 ms | lag max ms | undelivered | bad signatures | duplicates |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...runs.map((r) => {
      const d = r.deliveries!;
      return (
        `| ${r.scenario.id}${r.round ? ` #${r.round}` : ''} | ${r.engine} | ${int(d.events)} | ${int(d.eventsPerSec)} | ${int(d.duringLoad)} | ${int(d.backlogAtEnd)} | ${int(d.deliveredPerSec)} | ${f(d.drainSec, 1)} | ` +
        `${int(d.lagMs.p50)} | ${int(d.lagMs.p99)} | ${int(d.lagMs.max)} | ${int(d.undelivered)} | ${int(d.badSignatures)} | ${int(d.duplicates)} |`
      );
    }),
    '',
  ];
  for (const engine of engines(runs)) {
    const mine = pairs(rows, engine);
    if (mine.length === 0) continue;
    const figure = (name: string, of: (r: Row) => number, digits: number) =>
      `| ${name} | ${f(median(mine.map((p) => of(p.hooks))), digits)} | ${f(median(mine.map((p) => of(p.plain))), digits)} | ${f(median(mine.map((p) => of(p.hooks) / of(p.plain))), 2)} |`;
    out.push(
      `### A+hooks against A on ${engine} (${mine.length} rounds alternated, medians)`,
      '',
      '| figure | A+hooks | A (no endpoints) | median of ratios per round |',
      '|---|--:|--:|--:|',
      figure('p99 latency ms', p99, 2),
      figure('p50 latency ms', (r) => r.load.latencyMs.p50, 2),
      figure('successes per second', okPerSec, 0),
      figure('CPU ms per success, slipgate + database (A+hooks: with its deliveries)', cpu, 3),
      '',
    );
  }
  return out;
}

/** Target lines: W's deliveries per second, and A+hooks' p99 against A's. */
export function webhookTargets(rows: Row[]): string[] {
  const out: string[] = [];
  const runs = withDeliveries(rows);
  for (const engine of engines(runs)) {
    const w = runs.filter((r) => r.scenario.id === 'W' && r.engine === engine);
    if (w.length > 0) {
      const rate = median(w.map((r) => r.deliveries!.deliveredPerSec));
      const produced = median(w.map((r) => r.deliveries!.eventsPerSec));
      const lost = w.reduce((sum, r) => sum + r.deliveries!.undelivered + r.deliveries!.badSignatures, 0);
      const met = rate >= TARGET_DELIVERIES_PER_SEC && lost === 0;
      out.push(
        `W on ${engine}, webhook deliveries ≥ ${int(TARGET_DELIVERIES_PER_SEC)}/s (median of ${w.length} runs): ${met ? '**met**' : '**MISSED**'}: ${int(rate)}/s delivered of ${int(produced)} events/s produced, ` +
          `lag p50 ${int(median(w.map((r) => r.deliveries!.lagMs.p50)))} / p99 ${int(median(w.map((r) => r.deliveries!.lagMs.p99)))} ms` +
          (produced < TARGET_DELIVERIES_PER_SEC ? `; the load produced fewer than ${int(TARGET_DELIVERIES_PER_SEC)} events/s, so the rate was not offered` : '') +
          (lost > 0 ? `; **${lost} events undelivered or refused for a bad signature**` : ''),
      );
    }
    const mine = pairs(rows, engine);
    if (mine.length > 0) {
      const ratio = median(mine.map((p) => p99(p.hooks) / p99(p.plain)));
      out.push(
        `A+hooks on ${engine}, A's p99 with the delivery worker busy within 10% of A's without endpoints (≤ ${MAX_P99_MOVE}×, median of ${mine.length} rounds): ` +
          `${ratio <= MAX_P99_MOVE ? '**met**' : '**MISSED**'}: ${f(ratio, 2)}× (${f(median(mine.map((p) => p99(p.hooks))), 1)} against ${f(median(mine.map((p) => p99(p.plain))), 1)} ms)`,
      );
    }
  }
  return out;
}
