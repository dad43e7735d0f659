// How much room a measured run left on the machine: the share of all CPU
// time that was idle, and how busy the target's busiest event loop was (the
// main thread of slipgate, or of each cluster worker). A paced run is only a
// measurement of what delivery costs while its plain side (A-<rate>, no
// endpoints) still had room: past that, answers queue for the CPU, and the
// ratio of two p99s compares two queues' lengths (webhooks-report.ts).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CLOCK_TICKS, processTree } from './processes.js';

export interface Headroom {
  /** Idle (and I/O wait) time of every CPU over the run, as a share of all CPU time: 0 to 1. */
  machineIdle: number;
  /** The busiest main thread's CPU time over the run's wall time: 1 is an event loop that never waited. */
  loopBusy: number;
}

/** Starts measuring now; the function returned gives the headroom since. Linux only (reads /proc). */
export function headroomSince(pid: number): () => Headroom {
  const machine = machineTicks();
  const loops = mainThreadTicks(pid);
  const started = performance.now();
  return () => {
    const wallSec = (performance.now() - started) / 1000;
    const now = machineTicks();
    const total = now.total - machine.total;
    let busiest = 0;
    for (const [p, ticks] of mainThreadTicks(pid)) busiest = Math.max(busiest, ticks - (loops.get(p) ?? ticks));
    return { machineIdle: total > 0 ? (now.idle - machine.idle) / total : 0, loopBusy: wallSec > 0 ? busiest / CLOCK_TICKS / wallSec : 0 };
  };
}

/** The first line of /proc/stat: user nice system idle iowait irq softirq steal (guest time is inside user). */
function machineTicks(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
}

/** utime + stime of the main thread (its task id is the process id) of `pid` and each descendant. */
function mainThreadTicks(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(p, Number(fields[11]) + Number(fields[12]));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
