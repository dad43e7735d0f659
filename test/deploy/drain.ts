// How long a graceful stop (SIGTERM) may take with the default settings: the
// listeners wait for requests in flight, which end by REQUEST_TIMEOUT_MS at
// the latest, and verifications by UPSTREAM_TIMEOUT_MS after a picture's
// decoding budget. Every stop grace shipped in deploy/ must be longer.
import { loadConfig } from '../../src/config.js';

const defaults = loadConfig({});

export const DRAIN_BOUND_SECONDS =
  Math.max(defaults.REQUEST_TIMEOUT_MS, defaults.IMAGE_DECODE_TIMEOUT_MS + defaults.UPSTREAM_TIMEOUT_MS) / 1000;

/** `45s`, `1m30s`, `45` (seconds) → seconds. */
export function durationSeconds(text: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s?)?$/.exec(text.trim());
  if (!match || (match[1] === undefined && match[2] === undefined)) throw new Error(`not a duration: ${text}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}
