// The `slipgate` entry bounds how far V8 lets the heap grow past what is
// alive (src/heap-growth.cts), so the shipped start commands keep memory near
// the live data without a flag. The probe keeps ~250 MB alive and churns
// garbage a fixed number of times; its peak RSS is compared with and without
// the module (memory, not time: the ratio was ~0.68 when written).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const GROWTH = new URL('../../src/heap-growth.cts', import.meta.url).pathname;
const PROBE = new URL('../fixtures/heap-churn-probe.cjs', import.meta.url).pathname;

async function peakRss(args: string[]): Promise<number> {
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [...args, PROBE], { env: inherited, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
  return (JSON.parse(out) as { peakRssMb: number }).peakRssMb;
}

describe('heap growth', () => {
  it('keeps the peak well below what V8 lets a large machine reach by default', { timeout: 60_000 }, async () => {
    const [plain, bounded] = [await peakRss([]), await peakRss(['-r', GROWTH])];
    expect(bounded).toBeLessThan(plain * 0.85);
  });

  it('is loaded by the installed command before the program', () => {
    const entry = readFileSync(new URL('../../src/entry.cts', import.meta.url), 'utf8');
    const code = entry.split('\n').filter((l) => l.trim() && !l.trim().startsWith('//') && !l.startsWith('#!'));
    expect(code.slice(0, 3)).toEqual(["require('./thread-pool.cjs');", "require('./heap-growth.cjs');", "void import('./cli.js');"]);
  });
});
