// The four scenarios of the performance targets (docs/performance.md), plus E: B's load against the baseline, the
// latency floor of this harness and stack on this machine, I (pictures), H (cost against stored history), F (a flood of bad keys)
// and R (a retention pass under load); A+report / A+require are A under a receiver policy (receivers/policy.ts), A+pay A
// paying payment requests (payments.ts), A+hooks A's load with webhook endpoints (webhooks.ts), A+drain A beside a
// backlog of deliveries draining (drain-beside-a.ts; W, the drain alone, is drain.ts's); L (slip pictures through LINE
// against the verify route).
// Durations shrink with --quick (smoke runs).
import type { ReceiverPolicy } from '../../src/domain/types.js';
import type { ScenarioId } from './args.js';

export interface Scenario {
  /**
   * A+report, A+require, A+pay, A+hooks and A+drain: A's load with one
   * thing changed, apart from A's own figures and targets. A-<rate> and
   * A+hooks-<rate>: A and A+hooks offered a fixed rate (webhooks.ts).
   */
  id: ScenarioId | `A+${Exclude<ReceiverPolicy, 'off'>}` | 'A+pay' | 'A+hooks' | 'A+drain' | 'A+recheck' | `A-${number}` | `A+hooks-${number}`;
  title: string;
  /** What is measured: slipgate, or the bare express + got baseline. */
  target: 'slipgate' | 'baseline';
  upstreamLatencyMs: number;
  connections: number;
  durationSec: number;
  /** Offered requests/s in total; unset = closed loop, as fast as answers come. */
  overallRate?: number;
  /** Set with overallRate: a true open loop on a fixed schedule (paced-load.ts) instead of autocannon's per-second budget. */
  paced?: true;
  warmupSec: number;
  /** Checks every request asks for (the request's `checks`); none when unset. */
  checks?: Record<string, unknown>;
  /** Set: the bench accounts hold this receiver policy for the run, and every slip pays the receiver registered on each (receivers/policy.ts). */
  receiverPolicy?: ReceiverPolicy;
  /** Set: every verification names a pending payment request its slip pays, made through the API before the run (payments.ts). */
  payments?: true;
  /** Set: every bench account has a webhook endpoint for the run, at a receiver process that counts the deliveries (webhooks.ts). */
  webhooks?: true;
  /** Set: 1,000 slips are kept for re-checks through the API before the warm-up, asked again during the run (rechecks.ts). */
  rechecks?: true;
  /** Set: a backlog of webhook deliveries is built before the warm-up and drained during the measured run (drain-beside-a.ts). */
  drain?: true;
  /** slipgate's settings for the run besides the bench's own. */
  slipgateEnv?: Record<string, string>;
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
    // Read by retentionRuns (retention.ts): the load runs from the server's start until its retention pass ends, at least durationSec.
    R: {
      id: 'R',
      title: 'a retention pass on the server redacting --retention-records old verifications, valid keys verifying at 200/s beside it, against the same load without a pass',
      target: 'slipgate',
      upstreamLatencyMs: 0,
      connections: 8,
      overallRate: 200,
      durationSec: d(10, 3),
      warmupSec: 0,
    },
    // Read by runImageScenario (images.ts), not by the autocannon rows.
    I: { id: 'I', title: '1080×2340 screenshots flooding the image pool, 100 QR-text req/s beside them', target: 'slipgate', upstreamLatencyMs: 0, connections: 8, overallRate: 100, durationSec: d(15, 5), warmupSec: 0 },
    // Read by lineRounds (line.ts): each path runs durationSec after a warm-up of warmupSec each. The pictures are one
    // account's (a LINE channel pays with its account), so as many are in flight as IMAGE_MAX_PER_ACCOUNT lets one account have.
    L: { id: 'L', title: 'slip screenshots through LINE (simulate-line, a fresh slip each) and POST /api/v1/verify, one account', target: 'slipgate', upstreamLatencyMs: 0, connections: 4, durationSec: d(15, 4), warmupSec: d(2, 1) },
  };
}

/** Upper bound of requests/s for pre-generating QRs (more are made on the fly). */
export function expectedMaxRate(s: Scenario): number {
  if (s.overallRate) return s.overallRate * 1.2;
  if (s.upstreamLatencyMs > 0) return (s.connections / (s.upstreamLatencyMs / 1000)) * 1.2;
  return 10_000;
}
