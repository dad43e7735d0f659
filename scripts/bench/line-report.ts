// Scenario L in the results file: slipgate's CPU per verified picture for the
// same kind of picture arriving through LINE and through `POST /api/v1/verify`,
// measured in the same rounds, and the target of issue #35 on the median of
// the per-round ratios.
import type { PathResult } from './line-load.js';
import { quietLine, type QuietRun } from './line-quiet.js';
import { median, fixed as f } from './figures.js';

export interface LinePath extends PathResult {
  /** CPU seconds of slipgate (all threads) and of the database server (0 on SQLite) during the path's run. */
  cpu: number;
  db: number;
  /** Credits the channel's account spent during the run: one per verified picture when nothing is charged twice. */
  charged: number;
}

export interface LineRun {
  engine: string;
  round: number;
  /** The path measured first in the round (they take turns). */
  first: 'verify' | 'line';
  /** Distinct pictures in the verify route's set (LINE sends a fresh slip each time), and how many were in flight at once. */
  pictures: number;
  concurrency: number;
  verify: LinePath;
  line: LinePath;
  /** SQLite only: the quiet chat batch sent after both paths (line-quiet.ts). */
  quiet?: QuietRun;
}

/** Issue #35: a picture through LINE costs slipgate at most 10% more CPU than the same picture on the verify route. */
export const MAX_LINE_COST = 1.1;


/** Milliseconds of `seconds` per verified picture of the path. */
export const perVerified = (seconds: number, p: LinePath) => (p.verified > 0 ? (seconds * 1000) / p.verified : Number.NaN);

/** LINE's slipgate CPU per verified picture over the verify route's, in one round. */
export const lineRatio = (r: LineRun) => perVerified(r.line.cpu, r.line) / perVerified(r.verify.cpu, r.verify);

/** Markdown table rows, one per path per round. */
export function lineTable(runs: LineRun[]): string[] {
  const out = [
    '| engine | round | path | sent | verified | not verified | no answer | charged | verified/s | slipgate CPU ms per verified picture | db CPU ms per picture | p50 / p99 ms | LINE / verify CPU |',
    '|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|',
  ];
  for (const r of runs) {
    const order = r.first === 'verify' ? (['verify', 'line'] as const) : (['line', 'verify'] as const);
    for (const path of order) {
      const p = r[path];
      const name = path === 'verify' ? '`POST /api/v1/verify`' : 'LINE';
      out.push(
        `| ${r.engine} | ${r.round} | ${name} | ${p.sent} | ${p.verified} | ${p.notVerified} | ${p.noAnswer} | ${p.charged} | ${f(p.verified / p.seconds, 1)} | ` +
          `${f(perVerified(p.cpu, p), 1)} | ${f(perVerified(p.db, p), 1)} | ${f(p.latencyMs.p50, 0)} / ${f(p.latencyMs.p99, 0)} | ${path === 'line' ? `${f(lineRatio(r), 2)}×` : ''} |`,
      );
    }
  }
  return out;
}

/** Per engine: the target judged on the median of the per-round ratios. */
export function lineTargets(runs: LineRun[]): string[] {
  return [...new Set(runs.map((r) => r.engine))].map((engine) => {
    const ratios = runs.filter((r) => r.engine === engine).map(lineRatio);
    const m = median(ratios);
    return (
      `L on ${engine}, slipgate CPU per verified picture through LINE ≤ ${MAX_LINE_COST}× the verify route's (median of ${ratios.length} round${ratios.length === 1 ? '' : 's'}): ` +
      `${m <= MAX_LINE_COST ? '**met**' : '**MISSED**'}: ${f(m, 2)}×`
    );
  });
}

export function lineSection(runs: LineRun[]): string[] {
  if (runs.length === 0) return [];
  const { pictures, concurrency } = runs[0]!;
  const samples = runs.flatMap((r) => [...r.verify.samples.map((s) => `verify: ${s}`), ...r.line.samples.map((s) => `LINE: ${s}`)]);
  return [
    '## Scenario L: slip pictures through LINE against `POST /api/v1/verify`',
    '',
    `Slip pictures (1080×2340 PNG phone screenshots from \`phoneScreenshot()\`): on the verify route a set of ${pictures} distinct sandbox slips repeated,`,
    `through LINE a fresh slip in every message (the same screenshot, another slip's QR drawn over its QR: a slip verified before is`,
    `answered "sent before" in a chat, whoever sends it), ${concurrency} in flight,`,
    'sent to one slipgate in each round two ways, the two taking turns going first: as `POST /api/v1/verify` with `{"image": base64}`, and as',
    'LINE image messages through `slipgate simulate-line` (signed webhook events to `/line/webhook/<channel>`, the picture downloaded',
    "from the simulator's data API, the answer replied in the chat), each from a customer of its own, on one account whose channel is",
    'connected with checks off (the verify route is asked for none either). Only pictures that end verified count: a',
    '`{"status":"success"}` answer, or a reply in the chat that says the slip is verified. "charged" is the credits the account spent during',
    "the run (one per verified picture). CPU is slipgate's (all threads) from the first picture sent to the last answer, after a warm-up",
    'of both paths. p50 / p99 is request to answer on the verify route, and event sent to reply recorded by the simulator on LINE.',
    '',
    ...lineTable(runs),
    '',
    ...(samples.length > 0 ? ['Answers that were not a verification:', '', ...[...new Set(samples)].map((s) => `- \`${s.replaceAll('\n', ' ')}\``), ''] : []),
    ...lineTargets(runs).map((l) => `- ${l}`),
    ...runs.flatMap((r) => (r.quiet ? [`- round ${r.round} on ${r.engine}, ${quietLine(r.quiet)}`] : [])),
    '',
  ];
}
