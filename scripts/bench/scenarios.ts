// The four scenarios of the performance targets (docs/performance.md), plus E: B's load against the baseline, the
// latency floor of this harness and stack on this machine, I (pictures), H (cost against stored history) and F (a flood of bad keys).
// Durations shrink with --quick (smoke runs).
import type { ScenarioId } from './args.js';

export interface Scenario {
  id: ScenarioId;
  title: string;
  /** What is measured: slipgate, or the bare express + got baseline. */
  target: 'slipgate' | 'baseline';
  upstreamLatencyMs: number;
  connections: number;
  durationSec: number;
  /** Offered requests/s in total; unset = closed loop, as fast as answers come. */
  overallRate?: number;
  warmupSec: number;
  /** Checks every request asks for (the request's `checks`); none when unset. */
  checks?: Record<string, unknown>;
}

export function scenarios(quick: boolean): Record<ScenarioId, Scenario> {
  const d = (full: number, short: number) => (quick ? short : full);
  const b: Scenario = {
    id: 'B',
    title: '200 ms upstream, 1,000 req/s offered',
    target: 'slipgate',
    upstreamLatencyMs: 200,
    // 1,000/s × 0.2 s = 200 in flight; room for queueing.
    connections: 400,
    overallRate: 1000,
    durationSec: d(20, 5),
    warmupSec: d(3, 1),
  };
  return {
    A: { id: 'A', title: 'zero-latency upstream, 100 connections', target: 'slipgate', upstreamLatencyMs: 0, connections: 100, durationSec: d(20, 4), warmupSec: d(3, 1) },
    B: b,
    C: { id: 'C', title: '2 s upstream, 5,000 requests in flight', target: 'slipgate', upstreamLatencyMs: 2000, connections: 5000, durationSec: d(20, 8), warmupSec: 0 },
    D: { id: 'D', title: 'as A, bare express + got baseline', target: 'baseline', upstreamLatencyMs: 0, connections: 100, durationSec: d(20, 4), warmupSec: d(3, 1) },
    E: { ...b, id: 'E', title: 'as B, bare express + got baseline', target: 'baseline' },
    // Read by measureHistory (index.ts): runs alternate between an empty account and one with --history verifications.
    H: {
      id: 'H',
      title: 'checks.duplicate on every request, an empty account against one with a long history',
      target: 'slipgate',
      upstreamLatencyMs: 0,
      connections: 50,
      durationSec: d(20, 4),
      warmupSec: d(3, 1),
      checks: { duplicate: true },
    },
    // Read by measureFlood (flood.ts): runs until --flood bad-key requests are answered, then as long again without them.
    F: {
      id: 'F',
      title: 'bad API keys from one address flooding, valid keys verifying from another at 200/s, against a quiet run',
      target: 'slipgate',
      upstreamLatencyMs: 0,
      connections: 50,
      overallRate: 200,
      durationSec: 0,
      warmupSec: d(3, 1),
    },
    // Read by runImageScenario (images.ts), not by the autocannon rows.
    I: { id: 'I', title: '1080×2340 screenshots flooding the image pool, 100 QR-text req/s beside them', target: 'slipgate', upstreamLatencyMs: 0, connections: 8, overallRate: 100, durationSec: d(15, 5), warmupSec: 0 },
  };
}

/** Upper bound of requests/s for pre-generating QRs (more are made on the fly). */
export function expectedMaxRate(s: Scenario): number {
  if (s.overallRate) return s.overallRate * 1.2;
  if (s.upstreamLatencyMs > 0) return (s.connections / (s.upstreamLatencyMs / 1000)) * 1.2;
  return 10_000;
}
