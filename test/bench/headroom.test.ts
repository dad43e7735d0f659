// The bench's room check (headroom.ts) and --pin (pin.ts), on real
// processes: a child spinning its main thread reads as a busy loop, one that
// sleeps as an idle one, and two spinning on one CPU as loops waiting for it;
// a paced pair whose plain side had no room is judged "not measurable", not
// met or missed; a pinned child runs on the CPUs it was given, and --pin
// moves the bench process to the others.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { headroomSince, type Headroom } from '../../scripts/bench/headroom.js';
import { allowedCpus, cpuList, pinnedCommand } from '../../scripts/bench/pin.js';
import type { Row } from '../../scripts/bench/report.js';
import { scenarios } from '../../scripts/bench/scenarios.js';
import { webhookTargets } from '../../scripts/bench/webhooks-report.js';
import { eventually } from '../helpers/child.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});

/** A node child running `code`, on `cpus` when given. */
function child(code: string, cpus?: string): ChildProcess {
  const { command, args } = pinnedCommand(['-e', code], cpus);
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(proc);
  return proc;
}

/** Once the child has started up and printed its first line: node's start-up CPU is behind it. */
const started = async (proc: ChildProcess) => void (await once(proc.stdout!, 'data'));


describe('bench headroom', () => {
  it("reads a spinning main thread as a busy loop and a sleeping one as idle; the CPUs' idle time is a share", async () => {
    const spinning = child("console.log('up'); for (;;) {}");
    const sleeping = child("console.log('up'); setInterval(() => {}, 1000)");
    await Promise.all([started(spinning), started(sleeping)]);
    const [busy, idle] = [headroomSince(spinning.pid!), headroomSince(sleeping.pid!)];
    await sleep(1_000);
    const [b, i] = [busy(), idle()];
    // Loose bounds: the suite's other files share the machine's cores with the spinning child.
    expect(b.loopBusy).toBeGreaterThan(0.2);
    // Idle is its own time on a CPU. How long its few wake-ups waited for one is the machine's load (another
    // file's busy test, the spinning child): a run of the suite once measured 0.99 of the second there.
    expect(i.loopBusy).toBeLessThan(0.05);
    expect(i.loopBusy).toBeLessThan(b.loopBusy);
    for (const share of [b.cpusIdle, i.cpusIdle]) {
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
    }
  });

  it('counts the time a loop waits for a CPU another process holds, and only the idle time of the CPUs it may use', async () => {
    // Two spinning loops on one CPU: each runs about half the time and waits the other half.
    const [one, two] = [child("console.log('up'); for (;;) {}", '0'), child("console.log('up'); for (;;) {}", '0')];
    await Promise.all([started(one), started(two)]);
    const room = headroomSince(one.pid!);
    await sleep(1_000);
    const r = room();
    expect(r.loopWaiting).toBeGreaterThan(0.2);
    expect(r.loopBusy + r.loopWaiting).toBeGreaterThan(0.8);
    expect(r.cpusIdle).toBeLessThan(0.1);
  });
});

/** A paced pair's rows for one round: the plain side with `room`, the side with endpoints `ratio` times its p99. */
function pair(round: number, room: Headroom, ratio: number): Row[] {
  const a = scenarios(false).A;
  const row = (id: string, p99: number, headroom: Headroom): Row =>
    ({ scenario: { ...a, id, overallRate: 1000, paced: true }, engine: 'sqlite', profiled: false, round, headroom, load: { latencyMs: { p50: 10, p99 }, successes: 20_000, durationSec: 20 }, cpu: { target: 20, bank: 3, db: 0 }, peakRssBytes: 0, listenOverflows: 0 }) as unknown as Row;
  return [row('A-1000', 100, room), row('A+hooks-1000', 100 * ratio, room)];
}

const targetLine = (rows: Row[]) => webhookTargets(rows).find((l) => l.startsWith('A+hooks-1000 on sqlite'))!;

describe('bench verdict of the paced target', () => {
  const roomy = { loopBusy: 0.5, loopWaiting: 0.05, cpusIdle: 0.4 };

  it('judges the ratio while the plain side had room', () => {
    expect(targetLine([...pair(1, roomy, 1.02), ...pair(2, roomy, 1.06)])).toContain('**met**: 1.04×');
    expect(targetLine([...pair(1, roomy, 1.5), ...pair(2, roomy, 1.6)])).toContain('**MISSED**: 1.55×');
  });

  it('says "not measurable" when the plain side alone kept the loop running or waiting, or its CPUs full, and still prints the ratio', () => {
    const busyLoop = targetLine([...pair(1, { loopBusy: 0.72, loopWaiting: 0.2, cpusIdle: 0.3 }, 2.9), ...pair(2, { loopBusy: 0.7, loopWaiting: 0.2, cpusIdle: 0.3 }, 2.8)]);
    expect(busyLoop).toContain('**not measurable on this machine**');
    expect(busyLoop).toContain('event loop running 71% of the time and waiting for a CPU 20%');
    expect(busyLoop).toContain('2.85×');
    expect(busyLoop).not.toContain('MISSED');
    const fullCpus = targetLine([...pair(1, { loopBusy: 0.6, loopWaiting: 0.05, cpusIdle: 0.04 }, 1.5)]);
    expect(fullCpus).toContain('**not measurable on this machine**');
    expect(fullCpus).toContain("left 4% of slipgate's CPUs idle");
  });
});

describe('bench --pin', () => {
  it('reads CPU lists as taskset and /proc write them', () => {
    expect(cpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(cpuList('3')).toEqual([3]);
  });

  it('starts a pinned child on the CPUs it was given', async () => {
    const pinned = child('setInterval(() => {}, 1000)', '0');
    // Once taskset has executed node (it sets the affinity first): the child's command is node's.
    await eventually(async () => readFileSync(`/proc/${pinned.pid}/cmdline`, 'utf8').startsWith(process.execPath));
    expect(allowedCpus(pinned.pid!)).toEqual([0]);
  });

  it('moves the bench process to the CPUs it leaves to everyone else, and its children inherit them', () => {
    // In a process of its own: pinning this test's process would pin the rest of the suite.
    const script = `import { pinCores } from './scripts/bench/pin.ts';
      import { execFileSync } from 'node:child_process';
      const pin = pinCores();
      const own = /Cpus_allowed_list:\\s*(\\S+)/.exec(execFileSync('cat', ['/proc/self/status'], { encoding: 'utf8' }))[1];
      console.log(JSON.stringify({ ...pin, child: own }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as { target: string; others: string; child: string };
    const all = allowedCpus(process.pid);
    const half = Math.ceil(all.length / 2);
    expect(cpuList(out.target)).toEqual(all.slice(0, half));
    expect(cpuList(out.others)).toEqual(all.slice(half));
    // `cat` is a child started after the pin: it runs where the bench process now does.
    expect(cpuList(out.child)).toEqual(all.slice(half));
  });
});
