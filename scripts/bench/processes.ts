// The processes a benchmark run measures or talks to: slipgate, the
// simulated bank and the baseline, each a child process with its output in
// a log file (no pipe back to this process, which is busy generating load).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fstatSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinnedCommand } from './pin.js';

export interface Started {
  name: string;
  proc: ChildProcess;
  /** What the ready check found (a URL). */
  url: string;
  logFile: string;
  /** Peak resident memory (VmHWM) of the process and its descendants, summed; 0 once gone. */
  peakRssBytes(): number;
  /** User + system CPU seconds the process and its live descendants have used so far (the kernel's accounting). */
  cpuSeconds(): number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface StartOptions {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** Looks at the log lines so far; returns the URL once the process is ready. */
  ready: (lines: string[]) => string | undefined;
  timeoutMs?: number;
  /** --pin: the CPUs it runs on (pin.ts); unset: this process's. */
  cpus?: string;
  /** Started through this launcher script (bin/sized-node, with NODE set to this node) instead of node directly. */
  launcher?: string;
}

export async function startProcess(opts: StartOptions): Promise<Started> {
  const fd = openSync(opts.logFile, 'w');
  const { command, args } = pinnedCommand(opts.args, opts.cpus, opts.launcher);
  const proc = spawn(command, args, { env: opts.launcher ? { ...opts.env, NODE: process.execPath } : opts.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = once(proc, 'exit').then(([code]) => code as number | null);
  let gone = false;
  void exited.then(() => (gone = true));

  const until = Date.now() + (opts.timeoutMs ?? 30_000);
  let url: string | undefined;
  while (!(url = opts.ready(readLines(opts.logFile)))) {
    if (gone || Date.now() > until) {
      proc.kill('SIGKILL');
      const tail = readLines(opts.logFile).slice(-15).join('\n');
      throw new Error(`${opts.name} ${gone ? 'exited' : 'did not get ready'} (log ${opts.logFile}):\n${tail}`);
    }
    await sleep(50);
  }
  return {
    name: opts.name,
    proc,
    url,
    logFile: opts.logFile,
    peakRssBytes: () => (gone || proc.pid === undefined ? 0 : peakRssOfTree(proc.pid)),
    cpuSeconds: () => (gone || proc.pid === undefined ? 0 : cpuSecondsOfTree(proc.pid)),
    async stop(graceMs = 30_000) {
      if (gone) return exited;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** Reads a growing log file in turns: each call returns the JSON lines written since the last (a long run's log is not read whole each time). */
export function logTail(file: string): () => Record<string, unknown>[] {
  let offset = 0;
  let partial = '';
  const decoder = new StringDecoder('utf8');
  return () => {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return [];
      const bytes = Buffer.alloc(size - offset);
      offset += readSync(fd, bytes, 0, bytes.length, offset);
      const lines = (partial + decoder.write(bytes)).split('\n');
      partial = lines.pop()!;
      return jsonLines(lines);
    } finally {
      closeSync(fd);
    }
  };
}

/** JSON log lines (pino), skipping anything else. */
export function jsonLines(lines: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line still being written
    }
  }
  return out;
}

/** Sum of VmHWM over `pid` and its descendants (cluster workers), in bytes. */
export function peakRssOfTree(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + vmHwmBytes(p), 0);
}

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux this runs on. */
export const CLOCK_TICKS = 100;

/** utime + stime of `pid` and its descendants (cluster workers), in seconds. */
function cpuSecondsOfTree(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / CLOCK_TICKS;
}

function cpuTicks(pid: number): number {
  try {
    // Fields after the command name (field 2, may hold spaces): state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function vmHwmBytes(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `pid` and its descendants (a cluster's workers). */
export function processTree(pid: number): number[] {
  return [pid, ...descendants(pid)];
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/**
 * The kernel's count of connections dropped because an accept queue was full
 * (machine-wide). Clients retry such SYNs after 1 s, 3 s…, which shows up as
 * latency, not as errors.
 */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
    const names = lines[0]!.split(/\s+/);
    const values = lines[1]!.split(/\s+/);
    return Number(values[names.indexOf('ListenOverflows')] ?? 0);
  } catch {
    return 0;
  }
}
