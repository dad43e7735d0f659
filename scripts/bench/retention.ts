// Scenario R: the server's own retention pass redacting --retention-records
// old verifications while merchants verify at a steady rate, against the same
// load on the same database with retention off. The pass is the one a server
// runs at startup on the lease holder (schedules/retention.ts), batch by batch
// inside its own group commit, as it runs every RETENTION_INTERVAL_MINUTES in
// production; so both runs start a fresh server and load it from the moment
// it is ready (neither is warmed up: a cold start falls on both alike). Each
// pass run first seeds its own old records (history.ts), so every round's
// pass redacts as many; rounds alternate which run goes first.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { EngineName } from './args.js';
import type { BuiltApp } from './build.js';
import { databaseCpu, databaseCpuSince } from './db-cpu.js';
import type { BenchDatabase } from './engines.js';
import { adminUrlOf, eventLoopWindow, type EventLoopDelay } from './event-loop.js';
import { historySupported, seedHistory } from './history.js';
import { runLoad, type LoadResult } from './load.js';
import { startBank, startSlipgate } from './phases.js';
import { jsonLines, logTail, readLines, type Started } from './processes.js';
import type { BenchRun } from './run.js';
import { CREDITS_PER_ACCOUNT, onSeededDatabase } from './seeding.js';

/** RETENTION_DAYS of the pass run; the seeded records end a day before the cutoff. */
const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const PASS_LOGGED = 'retention: personal data of old records removed';
/** However slow the machine, a pass that has not ended by then will not. */
const PASS_TIMEOUT_MS = 60 * 60_000;

export interface RetentionRun {
  engine: string;
  kind: 'pass' | 'quiet';
  round: number;
  /** Records the pass redacted (its log line); null on the quiet run. */
  redacted: number | null;
  /** The pass's wall time: from the server's lease start (the pass begins right after it) to the pass's log line; null on the quiet run. */
  passSec: number | null;
  /** Seconds of the measured load during which the pass was running; null on the quiet run. */
  overlapSec: number | null;
  /** What the engine did afterwards to drop old copies (the pass's purge detail). */
  purge: string | null;
  load: LoadResult;
  /** CPU seconds during the load: slipgate (all threads, the pass included) and the database server. */
  cpu: { target: number; db: number };
  eventLoop?: EventLoopDelay;
}

/** Scenario R on one engine: --repeat rounds of a pass run and a quiet run as long. */
export async function retentionRuns(run: BenchRun, app: BuiltApp, engine: EngineName): Promise<void> {
  const unsupported = historySupported(engine);
  if (unsupported) {
    run.say(`R/${engine}: skipped (${unsupported})`);
    run.report.skipped.push({ engine: `${engine} (R)`, reason: unsupported });
    return;
  }
  await onSeededDatabase(run, engine, async (db, keys) => {
    const records = run.args.retentionRecords;
    const accountId = await retentionAccount(db, records * run.args.repeat);
    let quietSec = run.scenarios.R.durationSec;
    for (let round = 1; round <= run.args.repeat; round++) {
      for (const kind of round % 2 === 1 ? (['pass', 'quiet'] as const) : (['quiet', 'pass'] as const)) {
        if (kind === 'pass') {
          run.say(`R/${engine}: writing ${records.toLocaleString('en-US')} verifications older than ${RETENTION_DAYS} days`);
          await seedHistory(db, accountId, records, { prefix: `retention${round}`, endsAt: Date.now() - (RETENTION_DAYS + 1) * DAY_MS });
        }
        const result = await measureRun(run, app, db, keys, { engine, kind, round, quietSec });
        if (kind === 'pass') quietSec = Math.max(1, Math.round(result.load.durationSec));
        run.report.retention.push(result);
      }
    }
  });
}

/** The account whose old records the passes redact, with credits for all of them (seedHistory charges them). */
async function retentionAccount(db: BenchDatabase, records: number): Promise<string> {
  const store = await openStore(db.url);
  try {
    const accounts = new AccountService(store);
    const { account } = await accounts.createAccount({ name: 'Retention history', credits: CREDITS_PER_ACCOUNT, actor: 'bench' });
    for (let more = records - CREDITS_PER_ACCOUNT; more > 0; more -= CREDITS_PER_ACCOUNT) {
      await accounts.topUp({ accountId: account.id, credits: Math.min(more, CREDITS_PER_ACCOUNT), reason: 'bench retention history', actor: 'bench' });
    }
    return account.id;
  } finally {
    await store.close();
  }
}

interface RunSpec {
  engine: string;
  kind: RetentionRun['kind'];
  round: number;
  /** The quiet run's length. */
  quietSec: number;
}

async function measureRun(run: BenchRun, app: BuiltApp, db: BenchDatabase, keys: string[], spec: RunSpec): Promise<RetentionRun> {
  const scenario = run.scenarios.R;
  const tag = `R-${spec.kind}/${spec.engine}`;
  const bank = await startBank(run, app, scenario.upstreamLatencyMs, tag);
  let target: Started | undefined;
  try {
    target = await startSlipgate(run, app, db, bank.url, tag, undefined, { RETENTION_DAYS: spec.kind === 'pass' ? String(RETENTION_DAYS) : 'off' });
    const loop = await eventLoopWindow(adminUrlOf(target.logFile));
    const before = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const loadStartedAt = Date.now();
    const started = performance.now();
    const passLine = spec.kind === 'pass' ? passEnded(target) : null;
    // The pass run's load lasts until the pass ends, and at least the scenario's length.
    const until = passLine ? Promise.all([passLine.catch(() => undefined), sleep(scenario.durationSec * 1000)]) : undefined;
    const load = await runLoad({
      url: target.url,
      connections: scenario.connections,
      overallRate: scenario.overallRate,
      apiKeys: keys,
      nextBody: () => `{"qrcode":"${sandboxQr()}"}`,
      durationSec: passLine ? 86_400 : spec.quietSec,
      ...(until ? { until } : {}),
    });
    const cpu = { target: target.cpuSeconds() - before.target, db: databaseCpuSince(before.db, db) };
    const eventLoop = await loop?.();
    const line = passLine ? await passLine : null;
    const leaseAt = jsonLines(readLines(target.logFile)).find((e) => e.msg === 'lease started')?.time as number | undefined;
    const passEnd = line ? (line.time as number) : null;
    const result: RetentionRun = {
      engine: spec.engine,
      kind: spec.kind,
      round: spec.round,
      redacted: line ? Number(line.redacted) : null,
      passSec: passEnd !== null && leaseAt !== undefined ? (passEnd - leaseAt) / 1000 : null,
      overlapSec: passEnd !== null ? Math.max(0, Math.min(passEnd - loadStartedAt, performance.now() - started)) / 1000 : null,
      purge: line ? ((line.purge as { detail?: string } | undefined)?.detail ?? null) : null,
      load,
      cpu,
      ...(eventLoop ? { eventLoop } : {}),
    };
    run.say(
      `${tag} #${spec.round}: ${load.durationSec.toFixed(0)} s; ${load.successes} ok, ${load.failures + load.errors} not ok, ` +
        `p50 ${load.latencyMs.p50.toFixed(2)} p99 ${load.latencyMs.p99.toFixed(2)} ms, CPU ${cpuPerSuccess(result).toFixed(3)} ms per success` +
        (line ? `; the pass redacted ${result.redacted} in ${result.passSec?.toFixed(1) ?? '?'} s, ${result.overlapSec!.toFixed(1)} s of it under the load` : ''),
    );
    return result;
  } finally {
    const code = await target?.stop();
    if (code !== undefined && code !== 0) run.say(`${tag}: ${target!.name} exited with ${code} (log: ${target!.logFile})`);
    await bank.stop();
  }
}

/** The pass's log line, once written; rejects if the pass failed, the server exited or the pass never ends. */
async function passEnded(target: Started): Promise<Record<string, unknown>> {
  const until = Date.now() + PASS_TIMEOUT_MS;
  const next = logTail(target.logFile);
  for (;;) {
    const entries = next();
    const done = entries.find((e) => e.msg === PASS_LOGGED);
    if (done) return done;
    const failed = entries.find((e) => typeof e.msg === 'string' && e.msg.startsWith('retention pass failed'));
    if (failed) throw new Error(`R: the retention pass failed (log: ${target.logFile}): ${JSON.stringify(failed.err ?? failed)}`);
    if (target.proc.exitCode !== null || Date.now() > until) throw new Error(`R: no retention pass ended (log: ${target.logFile})`);
    await sleep(100);
  }
}

export const cpuPerSuccess = (r: RetentionRun): number => (r.load.successes > 0 ? (r.cpu.target * 1000) / r.load.successes : Number.NaN);
