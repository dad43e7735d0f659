// The results: a table per run, the issue's targets marked met/missed with
// by how much, the machine, and the profile summary, as Markdown.
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';
import type { LoadResult } from './load.js';
import type { ProfileSummary } from './profile.js';
import type { EventLoopDelay } from './event-loop.js';
import type { Scenario } from './scenarios.js';
import { repeatSummary, repeatTargets } from './repeat.js';
import type { TreeState } from './build.js';
import { historySummary, historyTargets, type HistoryFacts } from './history-report.js';
import { pictureSection, type PictureRun } from './pictures.js';
import { databaseCpuLabel } from './db-cpu.js';
import { floodSection, type FloodRun } from './flood.js';
import { receiverSummary, receiverTargets } from './receiver-policy.js';
import type { PaymentFigures } from './payments.js';
import { paymentSection, paymentTargets } from './payments-report.js';
import type { DeliveryFigures } from './webhooks.js';
import type { DrainRun } from './drain.js';
import type { DrainBesideFigures } from './drain-beside-a.js';
import { webhookSection, webhookTargets } from './webhooks-report.js';
import type { RetentionRun } from './retention.js';
import { retentionSection } from './retention-report.js';
import { share } from './figures.js';
import type { Headroom } from './headroom.js';
import type { Pinning } from './pin.js';
import { lineSection, type LineRun } from './line-report.js';

export interface Row {
  scenario: Scenario;
  /** Storage engine, or "none" for the baseline. */
  engine: string;
  /** Measured under --cpu-prof: slower, kept out of the targets. */
  profiled: boolean;
  load: LoadResult;
  peakRssBytes: number;
  /** Connections the kernel dropped on full accept queues during the run (machine-wide). */
  listenOverflows: number;
  /** CPU seconds used during the measured run: the process under test (all workers), the simulated bank, and the database server's processes serving the run (0 on SQLite and for the baseline). */
  cpu: { target: number; bank: number; db: number };
  /** The room the measured run left the target: its busiest event loop, and its CPUs' idle time (headroom.ts). */
  headroom: Headroom;
  /** slipgate's event-loop delay during the measured run (its own metrics); absent for the baseline. */
  eventLoop?: EventLoopDelay;
  /** Round of --repeat (1-based); absent without it. */
  round?: number;
  /** Set when slipgate was built from another revision (--against), not from this tree. */
  revision?: string;
  /** Scenario H: verifications the account already held, and the round (empty, history, history, empty) of the run. */
  history?: { stored: number; round: number };
  /** A+pay: requests paid and answers that paid nothing (load.successes counts the paid ones only). */
  payments?: PaymentFigures;
  /** A+hooks: what the webhook receiver got of the run's events. */
  deliveries?: DeliveryFigures;
  /** A+drain: the backlog the worker drained beside the run. */
  drained?: DrainBesideFigures;
}

export interface Skipped {
  engine: string;
  reason: string;
}

export interface Report {
  date: string;
  quick: boolean;
  workers: number;
  /** The tree measured: its commit, and any uncommitted changes (written only with --allow-dirty). */
  tree: TreeState;
  /** Scenario H, per engine: the stored history and the database's size with it. */
  history: Record<string, HistoryFacts>;
  commandLine: string;
  /** --pin: the CPUs slipgate had to itself, and everyone else's. */
  pin?: Pinning;
  loadBefore: number[];
  loadAfter: number[];
  engines: Record<string, string>;
  rows: Row[];
  skipped: Skipped[];
  reconcile: Record<string, string>;
  profiles: Record<string, ProfileSummary | null>;
  /** Scenario I runs (pictures.ts). */
  pictures: PictureRun[];
  /** Scenario F runs (flood.ts). */
  floods: FloodRun[];
  /** Scenario R runs (retention.ts). */
  retention: RetentionRun[];
  /** Scenario L runs (line.ts). */
  line: LineRun[];
  /** Scenario W runs under --webhooks (drain.ts). */
  drains: DrainRun[];
}

const TARGETS = { aSqlitePerSec: 3000, aVsBaseline: 0.7, bAddedP50: 2, bAddedP99: 10, cPeakRssMb: 400 };

const perSec = (n: number, r: Row) => n / r.load.durationSec;
/** CPU milliseconds per successful answer: what a verification costs, whatever else the machine is doing. */
export const cpuPerOk = (seconds: number, r: Row) => (r.load.successes > 0 ? (seconds * 1000) / r.load.successes : Number.NaN);
const mb = (bytes: number) => bytes / 1024 / 1024;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '–');
const signed = (n: number) => `${n >= 0 ? '+' : ''}${ms(n)}`;
const pct = (n: number) => `${n >= 0 ? '+' : ''}${(n * 100).toFixed(0)}%`;

function baselineOf(rows: Row[], id: 'D' | 'E' = 'D'): Row | undefined {
  return rows.find((r) => r.scenario.id === id && !r.profiled);
}

function note(row: Row, rows: Row[]): string {
  const { id, upstreamLatencyMs } = row.scenario;
  const parts: string[] = [];
  if (row.profiled) parts.push('under --cpu-prof');
  if (row.history !== undefined) parts.push(`checks.duplicate; the account held ${int(row.history.stored)} verifications; round ${row.history.round}`);
  if (id === 'A') {
    const d = baselineOf(rows);
    if (d) parts.push(`${(perSec(row.load.successes, row) / perSec(d.load.successes, d)).toFixed(2)}× D`);
  }
  if (row.payments) parts.push(row.payments.notPaid > 0 ? `**a failed run: ${int(row.payments.notPaid)} answers did not pay** (counted not ok)` : 'every answer paid its request; ok = paid');
  if (id === 'B' || id === 'E') parts.push(`added p50 ${ms(row.load.latencyMs.p50 - upstreamLatencyMs)} / p99 ${ms(row.load.latencyMs.p99 - upstreamLatencyMs)} ms`);
  const e = id === 'B' ? baselineOf(rows, 'E') : undefined;
  // What slipgate adds over the bare stack under the same load and harness.
  if (e) parts.push(`vs E: p50 ${signed(row.load.latencyMs.p50 - e.load.latencyMs.p50)} / p99 ${signed(row.load.latencyMs.p99 - e.load.latencyMs.p99)} ms`);
  if (row.scenario.overallRate) parts.push(`offered ${int(row.scenario.overallRate)}/s`);
  // What an open loop's latency means depends on the room left (webhooks-report.ts).
  if (row.scenario.paced) parts.push(`loop busy ${share(row.headroom.loopBusy)} and waiting for a CPU ${share(row.headroom.loopWaiting)}, slipgate's CPUs idle ${share(row.headroom.cpusIdle)}`);
  // At most one request per connection can be cut off by the end of the run.
  const unanswered = row.load.sent - row.load.responses - row.load.errors;
  if (unanswered > row.scenario.connections) parts.push(`${int(unanswered)} of ${int(row.load.sent)} sent got no answer within the run`);
  if (row.listenOverflows > 0) parts.push(`${int(row.listenOverflows)} SYNs dropped on full accept queues (retried after ≥ 1 s)`);
  const codes = Object.entries(row.load.statusCodes).filter(([c]) => c !== '200');
  if (codes.length > 0) parts.push(`HTTP ${codes.map(([c, n]) => `${c}×${n}`).join(', ')}`);
  return parts.join('; ');
}

export function table(rows: Row[]): string {
  const head = ['scen.', 'engine', 'req/s', 'ok/s', 'successes', 'p50 ms', 'p90 ms', 'p99 ms', 'not ok', 'CPU ms/ok', 'db CPU ms/ok', 'total CPU ms/ok', 'bank CPU ms/ok', 'loop p99 ms', 'peak RSS MB', 'notes'];
  const lines = rows.map((r) => [
    r.scenario.id + (r.revision ? `@${r.revision}` : '') + (r.profiled ? '*' : '') + (r.round ? ` #${r.round}` : ''),
    r.engine,
    int(perSec(r.load.responses, r)),
    int(perSec(r.load.successes, r)),
    int(r.load.successes),
    ms(r.load.latencyMs.p50),
    ms(r.load.latencyMs.p90),
    ms(r.load.latencyMs.p99),
    int(r.load.failures + r.load.errors),
    cpuPerOk(r.cpu.target, r).toFixed(3),
    cpuPerOk(r.cpu.db, r).toFixed(3),
    cpuPerOk(r.cpu.target + r.cpu.db, r).toFixed(3),
    cpuPerOk(r.cpu.bank, r).toFixed(3),
    r.eventLoop ? ms(r.eventLoop.p99Ms) : '–',
    mb(r.peakRssBytes).toFixed(0),
    note(r, rows),
  ]);
  return [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i < 2 || i === head.length - 1 ? '---' : '--:')).join('|')}|`, ...lines.map((l) => `| ${l.join(' | ')} |`)].join('\n');
}

/** One line per target: met or missed, and by how much. */
export function targets(rows: Row[], drains: DrainRun[] = []): string[] {
  // --repeat rows are judged on their medians (repeat.ts).
  const out: string[] = [...repeatTargets(rows), ...historyTargets(rows), ...receiverTargets(rows), ...paymentTargets(rows), ...webhookTargets(rows, drains)];
  const measured = rows.filter((r) => !r.profiled && !r.revision && r.round === undefined);
  const d = baselineOf(measured);
  const verdict = (ok: boolean) => (ok ? '**met**' : '**MISSED**');
  for (const a of measured.filter((r) => r.scenario.id === 'A')) {
    const okPerSec = perSec(a.load.successes, a);
    if (a.engine === 'sqlite') {
      const diff = okPerSec - TARGETS.aSqlitePerSec;
      out.push(`A on SQLite ≥ ${int(TARGETS.aSqlitePerSec)} successful verifications/s: ${verdict(diff >= 0)}: ${int(okPerSec)}/s (${diff >= 0 ? '+' : ''}${int(diff)}/s, ${pct(diff / TARGETS.aSqlitePerSec)})`);
    }
    if (d) {
      const ratio = okPerSec / perSec(d.load.successes, d);
      out.push(`A on ${a.engine} ≥ ${TARGETS.aVsBaseline}× baseline D: ${verdict(ratio >= TARGETS.aVsBaseline)}: ${ratio.toFixed(2)}× (${ratio >= TARGETS.aVsBaseline ? '+' : ''}${(ratio - TARGETS.aVsBaseline).toFixed(2)})`);
    }
  }
  for (const b of measured.filter((r) => r.scenario.id === 'B')) {
    const p50 = b.load.latencyMs.p50 - b.scenario.upstreamLatencyMs;
    const p99 = b.load.latencyMs.p99 - b.scenario.upstreamLatencyMs;
    out.push(`B on ${b.engine}, added p50 ≤ ${TARGETS.bAddedP50} ms: ${verdict(p50 <= TARGETS.bAddedP50)}: ${ms(p50)} ms${p50 > TARGETS.bAddedP50 ? ` (over by ${ms(p50 - TARGETS.bAddedP50)} ms)` : ''}`);
    out.push(`B on ${b.engine}, added p99 ≤ ${TARGETS.bAddedP99} ms: ${verdict(p99 <= TARGETS.bAddedP99)}: ${ms(p99)} ms${p99 > TARGETS.bAddedP99 ? ` (over by ${ms(p99 - TARGETS.bAddedP99)} ms)` : ''}`);
  }
  for (const c of measured.filter((r) => r.scenario.id === 'C')) {
    // Requests still unanswered at the end beyond the ones in flight count too.
    const bad = c.load.failures + c.load.errors + Math.max(0, c.load.sent - c.load.responses - c.load.errors - c.scenario.connections);
    const rss = mb(c.peakRssBytes);
    out.push(`C on ${c.engine}, zero errors: ${verdict(bad === 0 && c.load.responses > 0)}: ${int(bad)} not ok or unanswered of ${int(c.load.sent)} sent`);
    // Zero errors means little if the answers queued up: with 5,000 in
    // flight they should still come back close to the upstream's latency.
    const bound = c.scenario.upstreamLatencyMs * 1.25;
    const p99 = c.load.latencyMs.p99;
    out.push(`C on ${c.engine}, no queueing (p99 ≤ 1.25 × upstream latency = ${int(bound)} ms): ${verdict(p99 <= bound)}: p99 ${int(p99)} ms`);
    out.push(`C on ${c.engine}, peak RSS ≤ ${TARGETS.cPeakRssMb} MB: ${verdict(rss <= TARGETS.cPeakRssMb)}: ${rss.toFixed(0)} MB${rss > TARGETS.cPeakRssMb ? ` (over by ${(rss - TARGETS.cPeakRssMb).toFixed(0)} MB)` : ''}`);
  }
  return out;
}

/** The commit measured; a tree with uncommitted changes is named as such, with the files. */
function revisionLines(tree: TreeState): string[] {
  if (tree.commit === null) return ['- slipgate: **not a git checkout, revision unknown** (written with `--allow-dirty`)'];
  if (tree.changed.length === 0) return [`- slipgate: revision measured \`${tree.commit}\` (clean tree)`];
  return [
    `- slipgate: revision measured \`${tree.commit}\` **plus uncommitted changes** (written with \`--allow-dirty\`; these numbers describe no commit): ${tree.changed.map((f) => `\`${f}\``).join(', ')}`,
  ];
}

export function machine(): string[] {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return [
    `CPU: ${cpu}, ${availableParallelism()} cores available`,
    `RAM: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `OS: ${type()} ${release()}`,
    `Node.js: ${process.version}`,
  ];
}

export function markdown(r: Report): string {
  const out: string[] = [];
  out.push(`# slipgate benchmark, ${r.date}${r.quick ? ' (QUICK SMOKE RUN)' : ''}`, '');
  if (r.quick) {
    out.push(
      '> **Quick run (`--quick`): short durations, not a measurement.** Numbers from a quick run, or from a',
      '> machine that was busy (see the load averages below), are only good for smoke-testing the harness.',
      '> Re-run `npm run bench` on a quiet machine for real numbers.',
      '',
    );
  }
  out.push('## Machine', '', ...machine().map((l) => `- ${l}`));
  out.push(`- Load average (1/5/15 min) before: ${r.loadBefore.map((n) => n.toFixed(2)).join(' / ')}, after: ${r.loadAfter.map((n) => n.toFixed(2)).join(' / ')}`);
  out.push(`- slipgate processes: ${r.workers} (\`serve --workers ${r.workers}\`)${r.workers > 1 ? '; the baseline runs as many' : ''}`);
  if (r.pin) out.push(`- Pinned (--pin): slipgate (and the baseline) on CPUs ${r.pin.target}; the load generator, the simulated bank, the webhook receiver and FerretDB on ${r.pin.others} (a PostgreSQL server is not pinned)`);
  for (const [engine, description] of Object.entries(r.engines)) out.push(`- ${engine}: ${description}`);
  out.push(...revisionLines(r.tree));
  out.push('', `Command: \`${r.commandLine}\``, '');
  out.push('## Setup', '');
  out.push(
    '- Everything on loopback, on this one machine: the load generator (autocannon, in the bench process), slipgate (a child',
    '  process running `serve`, transpiled from `src/` by esbuild, LOG_LEVEL=info as in production, default settings otherwise),',
    '  and the simulated bank (`slipgate simulate-bank --provider kbank`, its own process, real KBank protocol over HTTP keep-alive).',
    '- 32 accounts with 10,000,000 credits each; requests rotate over their API keys; every request carries a distinct valid slip QR.',
    '- Each run starts fresh processes; A, B and D are preceded by a short warm-up. Latency is measured by the client, per request.',
    '- Peak RSS is VmHWM of the slipgate process (summed over its workers in cluster mode), read at the end of the run.',
    '- CPU ms/ok is user + system CPU (the kernel\'s accounting, /proc/<pid>/stat) of the process under test, all workers,',
    '  during the measured run, divided by its successful answers; "bank" is the same for the simulated bank. "db" is the same',
    '  for the database server: ' + Object.keys(r.engines).map((e) => `${e}: ${databaseCpuLabel(e)}`).join('; ') + '.',
    '  "total" is slipgate + db: what one verification costs on each engine.',
    '- loop p99 ms is slipgate\'s event-loop delay (p99) during the measured run, from its own metrics (nodejs_eventloop_lag_p99_seconds).',
    '- "not ok" counts answers without `"status":"success"` plus requests that got no answer (socket errors/timeouts).',
    '- D (baseline) is `scripts/bench/baseline.ts`: express + got, KBank token once, then one POST per slip; no auth, DB, audit, credits.',
    '',
  );
  out.push('## Results', '', table(r.rows), '');
  if (r.skipped.length > 0) out.push(...r.skipped.map((s) => `- ${s.engine} skipped: ${s.reason}`), '');
  const failures = r.rows.filter((row) => row.load.failureSamples.length > 0);
  if (failures.length > 0) {
    out.push('Sample answers that were not a success:', '');
    for (const row of failures) out.push(`- ${row.scenario.id}/${row.engine}: ${row.load.failureSamples.map((s) => `\`${s}\``).join(', ')}`);
    out.push('');
  }
  if (Object.keys(r.reconcile).length > 0) {
    out.push('Reconciliation after the runs (`slipgate doctor` logic):', '', ...Object.entries(r.reconcile).map(([e, s]) => `- ${e}: ${s}`), '');
  }
  out.push(...repeatSummary(r.rows));
  out.push(...historySummary(r.rows, r.history));
  out.push(...pictureSection(r.pictures));
  out.push(...receiverSummary(r.rows));
  out.push(...paymentSection(r.rows));
  out.push(...webhookSection(r.rows, r.drains));
  out.push(...floodSection(r.floods));
  out.push(...retentionSection(r.retention));
  out.push(...lineSection(r.line));
  out.push('## Targets', '', ...targets(r.rows, r.drains).map((l) => `- ${l}`), '');
  for (const [engine, p] of Object.entries(r.profiles)) {
    out.push(`## CPU profile, scenario A on ${engine}`, '');
    if (!p) {
      out.push('No profile was written.', '');
      continue;
    }
    out.push(
      `${p.files} profile file(s); ${int(p.busyMs)} ms busy of ${int(p.totalMs)} ms sampled. The profile covers the whole`,
      'process, start-up included (module loading shows as node:internal/modules, compileSourceTextModule, wrapSafe);',
      'native work (socket writes, SQLite statements) is attributed to the function that called it. Self time by area:',
      '',
      '| area | self ms | % of busy |',
      '|---|--:|--:|',
      ...p.areas.map((a) => `| ${a.area} | ${int(a.selfMs)} | ${((a.selfMs / p.busyMs) * 100).toFixed(1)} |`),
      '',
      'Top functions by self time:',
      '',
      '| function | where | self ms | % of busy |',
      '|---|---|--:|--:|',
      ...p.functions.map((f) => `| \`${f.name}\` | ${f.where || '–'} | ${int(f.selfMs)} | ${((f.selfMs / p.busyMs) * 100).toFixed(1)} |`),
      '',
    );
  }
  return out.join('\n');
}
