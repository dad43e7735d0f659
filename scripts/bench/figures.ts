// The small arithmetic every results section shares: medians of rounds
// (what a noisy shared machine can be judged on), fixed-point figures with a
// dash for what was not measured, and a run's rates.
import { cpuPerOk, type Row } from './report.js';

/** The median of the finite values; NaN when there are none. */
export const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** `n` with `digits` decimals, or a dash for what was not measured. */
export const fixed = (n: number | null | undefined, digits: number): string => (n !== null && n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '–');

/** CPU ms per success of slipgate and the database together: what one verification costs on the engine. */
export const totalCpuPerOk = (r: Row) => cpuPerOk(r.cpu.target + r.cpu.db, r);

export const okPerSec = (r: Row) => r.load.successes / r.load.durationSec;

/** A share (0 to 1) as a whole percentage. */
export const share = (n: number): string => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '–');
