// CPU of the database server serving a run, read from /proc like slipgate's
// own: on SQLite the database works inside slipgate and is already counted;
// on PostgreSQL it works in the server's backends, one per connection, which
// name their database in their process title; the MongoDB-wire test server
// (FerretDB, scripts/mongo-wire.sh) is one process found by its listen port.
// Background processes PostgreSQL shares with every database on the server
// (WAL writer, checkpointer) are left out: other work on the machine uses them too.
import { readFileSync, readdirSync } from 'node:fs';
import type { BenchDatabase } from './engines.js';
import { CLOCK_TICKS } from './processes.js';

/** CPU seconds so far of each process serving `db`, by pid; empty for SQLite. */
export function databaseCpu(db: BenchDatabase | null): Map<number, number> {
  const out = new Map<number, number>();
  if (!db || db.engine === 'sqlite') return out;
  const url = new URL(db.url);
  const wanted =
    db.engine === 'postgres'
      ? (cmd: string) => cmd.startsWith('postgres: ') && cmd.includes(` ${url.pathname.slice(1)} `)
      : (cmd: string) => cmd.includes(`--listen-addr=127.0.0.1:${url.port}`);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!wanted(cmd)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** CPU seconds the database's processes used between two readings (a backend started during the run counts from 0). */
export function databaseCpuSince(before: Map<number, number>, db: BenchDatabase | null): number {
  let sum = 0;
  for (const [pid, seconds] of databaseCpu(db)) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

/** What the results call the database's CPU, per engine. */
export function databaseCpuLabel(engine: string): string {
  if (engine === 'postgres') return "PostgreSQL backends of the run's database";
  if (engine === 'mongodb') return 'the MongoDB-wire test server (FerretDB on SQLite; not a real MongoDB)';
  return 'inside slipgate (SQLite is a library)';
}
