// The LINE matching bench (scripts/bench/line-match.ts) as a real process on
// a small history, on SQLite and PostgreSQL: its seed is what the schema
// takes, the slip it times matches the order it should (the script stops
// otherwise), and it prints a row per account and engine.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = new URL('../../scripts/bench/line-match.ts', import.meta.url).pathname;

describe('bench: LINE payment matching', () => {
  it('seeds, matches and prints each account on each engine', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', SCRIPT, '--history', '300', '--engine', 'sqlite,postgres']);
    for (const engine of ['sqlite', 'postgres']) {
      expect(stdout).toMatch(new RegExp(`^\\| ${engine} \\| 300 past \\+ 5 pending \\| [\\d.]+ (µs|ms) \\| [\\d.]+ (µs|ms) \\|$`, 'm'));
      expect(stdout).toMatch(new RegExp(`^\\| ${engine} \\| 5 pending only \\| [\\d.]+ (µs|ms) \\| [\\d.]+ (µs|ms) \\|$`, 'm'));
    }
  });
});
