// How much room a measured run left slipgate: how much of the time its
// busiest event loop (the main thread of slipgate, or of each cluster
// worker) ran, and waited for a CPU with work to do, and how much of the
// CPUs slipgate may run on stayed idle. A paced run only measures what
// delivery costs while its plain side (A-<rate>, no endpoints) still had
// room: past that, answers queue for the CPU, and the ratio of two p99s
// compares two queues' lengths (webhooks-report.ts).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { allowedCpus } from './pin.js';
import { processTree } from './processes.js';

export interface Headroom {
  /** The busiest main thread's time on a CPU over the run's wall time: 1 is an event loop that never waited. */
  loopBusy: number;
  /** The same thread's time runnable but waiting for a CPU (other processes, or its own threads, had them), over the wall time. */
  loopWaiting: number;
  /** Idle (and I/O wait) time of the CPUs the target may run on, as a share of their time: 0 to 1. */
  cpusIdle: number;
}

/** Starts measuring now; the function returned gives the headroom since. Linux only (reads /proc). */
export function headroomSince(pid: number): () => Headroom {
  const cpus = new Set(allowedCpus(pid));
  const idleBefore = cpuTicks(cpus);
  const loopsBefore = mainThreads(pid);
  const started = performance.now();
  return () => {
    const wallNs = (performance.now() - started) * 1e6;
    const idleNow = cpuTicks(cpus);
    const total = idleNow.total - idleBefore.total;
    let busiest = { runNs: 0, waitNs: 0 };
    for (const [p, now] of mainThreads(pid)) {
      const before = loopsBefore.get(p) ?? now;
      const loop = { runNs: now.runNs - before.runNs, waitNs: now.waitNs - before.waitNs };
      if (loop.runNs + loop.waitNs > busiest.runNs + busiest.waitNs) busiest = loop;
    }
    return {
      loopBusy: wallNs > 0 ? busiest.runNs / wallNs : 0,
      loopWaiting: wallNs > 0 ? busiest.waitNs / wallNs : 0,
      cpusIdle: total > 0 ? (idleNow.idle - idleBefore.idle) / total : 0,
    };
  };
}

/** Of /proc/stat's per-CPU lines (user nice system idle iowait irq softirq steal; guest time is inside user), those of `cpus`. */
function cpuTicks(cpus: Set<number>): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match || !cpus.has(Number(match[1]))) continue;
    const fields = match[2]!.trim().split(/\s+/).slice(0, 8).map(Number);
    idle += fields[3]! + fields[4]!;
    total += fields.reduce((a, b) => a + b, 0);
  }
  return { idle, total };
}

/** Time on a CPU and time waiting for one (ns, /proc/.../schedstat) of the main thread (its task id is the process id) of `pid` and each descendant. */
function mainThreads(pid: number): Map<number, { runNs: number; waitNs: number }> {
  const out = new Map<number, { runNs: number; waitNs: number }>();
  for (const p of processTree(pid)) {
    try {
      const [runNs, waitNs] = readFileSync(`/proc/${p}/task/${p}/schedstat`, 'utf8').trim().split(' ').map(Number);
      out.set(p, { runNs: runNs!, waitNs: waitNs! });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
