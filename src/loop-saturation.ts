// Whether this process's event loop is saturated: the share of the recent
// past it spent running callbacks (Node's event-loop utilisation) is at or
// above a threshold. Background work that shares the loop with the answers
// (the webhook worker's claims and records) asks it before taking more.
import { performance } from 'node:perf_hooks';

export interface LoopSaturationOptions {
  /** Utilisation from 0 to 1 that counts as saturated. */
  threshold: number;
  /** The shortest span one reading covers: a reading is kept until it is this old. */
  windowMs: number;
}

/** A reading of the time since the previous one (at least windowMs ago), taken when asked. */
export function loopSaturation(opts: LoopSaturationOptions): () => boolean {
  let mark = performance.eventLoopUtilization();
  let markedAt = performance.now();
  let saturated = false;
  return () => {
    const now = performance.now();
    if (now - markedAt >= opts.windowMs) {
      const current = performance.eventLoopUtilization();
      saturated = performance.eventLoopUtilization(current, mark).utilization >= opts.threshold;
      mark = current;
      markedAt = now;
    }
    return saturated;
  };
}
