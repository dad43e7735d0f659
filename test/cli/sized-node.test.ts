// bin/sized-node: what npm start, the systemd unit and the image start
// `serve` through. It caps V8's old generation at 384 MB where node's own
// default (a quarter of the memory) would be larger, leaves a smaller
// machine's default alone, lets NODE_OPTIONS win, and execs node (same pid).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';

const LAUNCHER = new URL('../../bin/sized-node', import.meta.url).pathname;
const CAP_MB = 384;
const REPORT = "console.log(JSON.stringify({ pid: process.pid, limitMb: require('v8').getHeapStatistics().heap_size_limit / 2 ** 20 }))";

interface Report {
  pid: number;
  limitMb: number;
}

async function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Report & { childPid: number }> {
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  const child = spawn(command, args, { env: { ...inherited, NODE: process.execPath, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
  return { ...(JSON.parse(out) as Report), childPid: child.pid! };
}

/** This machine's memory as the launcher reads it (physical; a cgroup limit, if any, only lowers it). */
function machineMb(): number {
  const kb = /^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : totalmem() / 2 ** 20;
}

describe('bin/sized-node', () => {
  it("never raises node's own limit and holds the old generation to 384 MB on a machine with more than 1.5 GB", async () => {
    const own = await run(process.execPath, ['-e', REPORT]);
    const sized = await run('/bin/sh', [LAUNCHER, '-e', REPORT]);
    expect(sized.limitMb).toBeLessThanOrEqual(own.limitMb);
    // heap_size_limit is the old generation plus the young one (a few tens of MB).
    if (machineMb() / 4 > CAP_MB) expect(sized.limitMb).toBeLessThan(CAP_MB + 64);
    else expect(sized.limitMb).toBe(own.limitMb);
  });

  it("leaves an operator's --max-old-space-size in NODE_OPTIONS as it is", async () => {
    const sized = await run('/bin/sh', [LAUNCHER, '-e', REPORT], { NODE_OPTIONS: '--max-old-space-size=1000' });
    expect(sized.limitMb).toBeGreaterThanOrEqual(1000);
  });

  it('becomes node: the pid the caller started is the one serving, so signals and the exit status are its own', async () => {
    const sized = await run('/bin/sh', [LAUNCHER, '-e', REPORT]);
    expect(sized.pid).toBe(sized.childPid);
  });

  it('is what npm start and the image run', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('sh bin/sized-node dist/entry.cjs serve');
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain('CMD ["sh", "bin/sized-node", "dist/entry.cjs", "serve"]');
    expect(dockerfile).toMatch(/^COPY bin \.\/bin$/m);
  });
});
