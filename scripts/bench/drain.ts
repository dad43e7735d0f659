// Scenario W (--webhooks): the delivery worker's own capacity, on a backlog:
// how fast it delivers with nothing else running, beyond the rate any load
// on this 2-core machine produces events at (A+hooks-1000, webhooks.ts,
// is the target's rate). W builds one through the real verify path: the
// bench accounts get endpoints at a receiver that reads every delivery and
// holds its answer, so the worker's attempts under way wait, it claims no
// more, and the `--webhook-backlog` verifications' events stay pending in
// the outbox exactly as the settle wrote them (no failed attempt on them, no
// redelivery, no row written by the bench). Then the receiver answers,
// at once from then on, and the worker drains the backlog at full speed:
// deliveries per second, slipgate's (and the database's) CPU per delivery,
// and afterwards every delivery's state in the store.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BuiltApp } from './build.js';
import { databaseCpu, databaseCpuSince } from './db-cpu.js';
import type { BenchDatabase } from './engines.js';
import { adminUrlOf, eventLoopWindow, type EventLoopDelay } from './event-loop.js';
import { runLoad, type LoadResult } from './load.js';
import { startBank, startSlipgate } from './phases.js';
import type { Started } from './processes.js';
import type { BenchRun } from './run.js';
import { addEndpoints, deliveriesReach, IN_FLIGHT_SETTLE_MS, removeEndpoints, startDeliveryReceiver, type DeliveryReceiver } from './webhooks.js';

/** Deliveries W drains when --webhook-backlog is not given (with --quick, a smoke-sized one). */
export const DEFAULT_BACKLOG = 20_000;
const QUICK_BACKLOG = 2_000;
/** Connections the build's verifications use: A's. */
const BUILD_CONNECTIONS = 100;
/**
 * The held attempts wait for their answers through the whole build, so W's
 * slipgate gives an attempt this long (the most config allows is an hour,
 * and the lease must be longer still); everything else is the default.
 */
// The bench's receiver listens on 127.0.0.1: WEBHOOK_ALLOW_PRIVATE=true.
export const HOLD_ENV = { WEBHOOK_TIMEOUT_MS: '1800000', WEBHOOK_LEASE_MS: '3600000', WEBHOOK_ALLOW_PRIVATE: 'true' };

/** One W run: the backlog built, then drained. */
export interface DrainRun {
  engine: string;
  round?: number;
  /** verification.succeeded events the build wrote (its successes): the backlog. */
  backlog: number;
  /** The build's verifications: how long they took, and answers that were not a success. */
  build: { sec: number; notOk: number };
  /** Attempts the worker had under way, held, when the receiver opened (part of the backlog). */
  held: number;
  /** Delivered with a good signature, each event once, from the opening to the end of the wait. */
  delivered: number;
  /** From the opening to the last delivery. */
  drainSec: number;
  deliveredPerSec: number;
  /** CPU seconds from the opening until the last attempts were recorded: slipgate (all workers) and the database server. */
  cpu: { target: number; db: number };
  /** From each event's `createdAt` (during the build) to its arrival: the time it waited in the backlog. */
  lagMs: { p50: number; p99: number; max: number };
  duplicates: number;
  badSignatures: number;
  /** The deliveries of W's endpoints by state in the store after the drain: all `delivered` when nothing was lost. */
  states: Record<string, number>;
  eventLoop?: EventLoopDelay;
}

export const backlogSize = (run: BenchRun): number => run.args.webhookBacklog ?? (run.args.quick ? QUICK_BACKLOG : DEFAULT_BACKLOG);

/** `count` verifications through POST /api/v1/verify, closed loop, each with a new slip; their events are the backlog. */
export function buildBacklog(url: string, keys: string[], count: number): Promise<LoadResult> {
  const bodies = Array.from({ length: count }, () => `{"qrcode":"${sandboxQr()}"}`);
  let i = 0;
  return runLoad({ url, connections: BUILD_CONNECTIONS, durationSec: 0, amount: count, apiKeys: keys, nextBody: () => bodies[i++] ?? `{"qrcode":"${sandboxQr()}"}` });
}

/** Opens a held receiver and waits until `events` were delivered (or none came for the stall time), then for the last attempts to be recorded. */
export async function drainBacklog(receiver: DeliveryReceiver, events: number): Promise<Pick<DrainRun, 'held' | 'delivered' | 'drainSec' | 'deliveredPerSec' | 'lagMs' | 'duplicates' | 'badSignatures'>> {
  const before = { delivered: receiver.delivered, lags: receiver.lagsMs.length, duplicates: receiver.duplicates, badSignatures: receiver.badSignatures };
  const held = receiver.parked;
  const openedAt = performance.now();
  receiver.release();
  await deliveriesReach(receiver, before.delivered + events);
  // The worker records each attempt after its answer: the last ones' writes belong to the drain.
  await sleep(IN_FLIGHT_SETTLE_MS);
  const delivered = receiver.delivered - before.delivered;
  const drainSec = delivered > 0 ? (receiver.lastAt - openedAt) / 1000 : Number.NaN;
  const lags = receiver.lagsMs.slice(before.lags).sort((x, y) => x - y);
  const at = (q: number) => (lags.length === 0 ? Number.NaN : lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!);
  return {
    held,
    delivered,
    drainSec,
    deliveredPerSec: delivered / drainSec,
    lagMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
    duplicates: receiver.duplicates - before.duplicates,
    badSignatures: receiver.badSignatures - before.badSignatures,
  };
}

/** The deliveries of `endpointIds` by state, read through the store. */
export async function deliveryStates(databaseUrl: string, endpointIds: string[]): Promise<Record<string, number>> {
  const store = await openStore(databaseUrl);
  try {
    const states: Record<string, number> = {};
    for (const endpointId of endpointIds) {
      let after: string | null = null;
      do {
        const page = await store.listWebhookDeliveries({ endpointId, limit: 500, after });
        for (const d of page.items) states[d.state] = (states[d.state] ?? 0) + 1;
        after = page.next;
      } while (after !== null);
    }
    return states;
  } finally {
    await store.close();
  }
}

/** W on one engine: endpoints at a held receiver, slipgate, the backlog built, then drained and checked. */
export async function measureDrain(run: BenchRun, app: BuiltApp, engine: string, db: BenchDatabase, keys: string[], round?: number): Promise<DrainRun> {
  const tag = `W/${engine}`;
  const count = backlogSize(run);
  run.say(`${tag}: a backlog of ${count.toLocaleString('en-US')} webhook deliveries built behind a held receiver, then drained`);
  const receiver = await startDeliveryReceiver({ held: true });
  let endpoints: string[] = [];
  let bank: Started | undefined;
  let target: Started | undefined;
  try {
    endpoints = await addEndpoints(db, receiver);
    bank = await startBank(run, app, 0, tag);
    target = await startSlipgate(run, app, db, bank.url, tag, undefined, HOLD_ENV);
    const buildStarted = performance.now();
    const built = await buildBacklog(target.url, keys, count);
    const build = { sec: (performance.now() - buildStarted) / 1000, notOk: built.failures + built.errors };
    run.say(`${tag}: ${built.successes} verifications in ${build.sec.toFixed(1)} s (${build.notOk} not ok), ${receiver.parked} attempts held; opening the receiver`);
    // The build's last settles and their fsyncs end before the drain's window opens.
    await sleep(IN_FLIGHT_SETTLE_MS);
    const loop = await eventLoopWindow(adminUrlOf(target.logFile));
    const cpuBefore = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const drained = await drainBacklog(receiver, built.successes);
    const cpu = { target: target.cpuSeconds() - cpuBefore.target, db: databaseCpuSince(cpuBefore.db, db) };
    const eventLoop = await loop?.();
    await target.stop();
    target = undefined;
    const states = await deliveryStates(db.url, endpoints);
    const result: DrainRun = { engine, ...(round ? { round } : {}), backlog: built.successes, build, ...drained, cpu, states, ...(eventLoop ? { eventLoop } : {}) };
    run.say(
      `${tag}: ${drained.delivered} of ${result.backlog} delivered in ${drained.drainSec.toFixed(1)} s: ${drained.deliveredPerSec.toFixed(0)}/s, ` +
        `CPU ${((cpu.target * 1000) / Math.max(1, drained.delivered)).toFixed(3)} ms per delivery (db ${((cpu.db * 1000) / Math.max(1, drained.delivered)).toFixed(3)}), ` +
        `${drained.badSignatures} bad signatures, ${drained.duplicates} duplicates; in the store: ${JSON.stringify(states)}`,
    );
    return result;
  } finally {
    // A failed run may leave attempts held: answered, slipgate's worker stops without waiting for their timeout.
    receiver.release();
    await target?.stop();
    await bank?.stop();
    if (endpoints.length > 0) await removeEndpoints(db, endpoints);
    await receiver.close();
  }
}
