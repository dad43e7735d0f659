// What every part of one `npm run bench` shares: its flags, its scenarios,
// the work directory for logs and profiles, and the report being filled.
import type { BenchArgs, ScenarioId } from './args.js';
import type { Report } from './report.js';
import type { Scenario } from './scenarios.js';
import type { Pinning } from './pin.js';

export interface BenchRun {
  /** The checkout measured. */
  root: string;
  args: BenchArgs;
  scenarios: Record<ScenarioId, Scenario>;
  /** Process logs and profiles (kept with --keep). */
  work: string;
  report: Report;
  /** --pin: slipgate's CPUs and everyone else's (pin.ts). */
  pin?: Pinning;
  say(line: string): void;
}

export const chosen = (run: BenchRun, id: ScenarioId): boolean => run.args.scenarios.includes(id);
