// libuv's thread pool is sized by the `slipgate` entry before the ES module
// loader can start it (src/threads/thread-pool.cts). The probe blocks N pool threads
// and prints only if one more file-system call still gets a thread: with the
// default of 4 and N ≥ 4 it would wait forever (the test then times out).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SIZING = new URL('../../src/threads/thread-pool.cts', import.meta.url).pathname;
const PROBE = new URL('../fixtures/thread-pool-probe.mjs', import.meta.url).pathname;

async function probe(blocked: number, env: Record<string, string>): Promise<{ free: boolean; size: string }> {
  const { UV_THREADPOOL_SIZE: _, IMAGE_WORKERS: __, ...inherited } = process.env;
  const child = spawn(process.execPath, ['-r', SIZING, PROBE, String(blocked)], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    return JSON.parse(out) as { free: boolean; size: string };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('libuv thread pool', () => {
  it('has 4 threads beyond one per image thread: 6 blocked still leave one free with IMAGE_WORKERS=3', { timeout: 30_000 }, async () => {
    expect(await probe(6, { IMAGE_WORKERS: '3' })).toEqual({ free: true, size: '7' });
  });

  it("keeps the operator's UV_THREADPOOL_SIZE", { timeout: 30_000 }, async () => {
    expect(await probe(8, { UV_THREADPOOL_SIZE: '9', IMAGE_WORKERS: '1' })).toEqual({ free: true, size: '9' });
  });

  it('is sized by the installed command and by npm start, before the program loads', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin.slipgate).toBe('dist/entry.cjs');
    expect(pkg.scripts.start).toBe('sh bin/sized-node dist/entry.cjs serve');
    const entry = readFileSync(new URL('../../src/entry.cts', import.meta.url), 'utf8');
    const code = entry.split('\n').filter((l) => l.trim() && !l.startsWith('//') && !l.startsWith('#!'));
    expect(code[0]).toBe("require('./threads/thread-pool.cjs');");
  });
});
