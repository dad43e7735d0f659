// --pin: slipgate (or the baseline) on CPUs of its own, and everything else
// the bench runs on the others: this process (the load generator) and every
// child it starts after (the simulated bank, the webhook receiver, FerretDB)
// inherit its affinity. Without it they all share every core, so what a
// webhook receiver or the load generator spends shows up as slipgate's
// latency. A PostgreSQL server, started by the system, is not pinned.
// Linux only: `taskset` (util-linux) sets the affinity.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Pinning {
  /** slipgate's (or the baseline's) CPUs, as taskset takes them: "0-1". */
  target: string;
  /** Everyone else's. */
  others: string;
}

/** Splits the CPUs this process may use, half (rounded up) to the target, and moves this process to the rest. */
export function pinCores(): Pinning {
  const cpus = allowedCpus('self');
  if (cpus.length < 2) throw new Error(`--pin needs at least 2 CPUs to split; this process may use ${cpus.length}`);
  const cut = Math.ceil(cpus.length / 2);
  const pinning = { target: cpus.slice(0, cut).join(','), others: cpus.slice(cut).join(',') };
  // -a: every thread of this process, the ones already running included.
  execFileSync('taskset', ['-a', '-p', '-c', pinning.others, String(process.pid)], { stdio: 'ignore' });
  return pinning;
}

/** The command that starts `args` under node on `cpus` (taskset then executes node: same pid). */
/** `launcher`: a script that starts node itself (bin/sized-node), run by sh with NODE set to this node. */
export function pinnedCommand(args: string[], cpus: string | undefined, launcher?: string): { command: string; args: string[] } {
  const [command, ...rest] = launcher ? ['/bin/sh', launcher, ...args] : [process.execPath, ...args];
  return cpus === undefined ? { command: command!, args: rest } : { command: 'taskset', args: ['-c', cpus, command!, ...rest] };
}

/** The CPUs a process may run on (its affinity, /proc/<pid>/status). */
export function allowedCpus(pid: number | 'self'): number[] {
  return cpuList(/^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '');
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function cpuList(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',').filter(Boolean)) {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    for (let cpu = from; cpu <= to; cpu++) out.push(cpu);
  }
  return out;
}
