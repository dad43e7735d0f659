// `--webhooks`: A+hooks, the paced pairs (A-<rate>, A+hooks-<rate>), A+drain
// and W (drain.ts). For their runs every bench account has one webhook
// endpoint subscribed to `verification.succeeded` (registered as the CLI's
// `webhooks add` does, removed after the run), at a receiver in its own
// process (receiver-process.ts): http://127.0.0.1, which docs/webhooks.md
// allows for a loopback host. The receiver checks each signature with the
// SDK's verifyWebhookSignature and answers 200 at once, counting deliveries
// and each one's lag from its event's `createdAt`. What each variant is
// compared with is webhookVariants' to say. W holds the receiver's answers
// while it builds a backlog, then lets the worker drain it: the deliveries
// per second the worker itself can make.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { storeServices } from '../../src/compose-store.js';
import { openStore } from '../../src/store/open.js';
import type { BenchDatabase } from './engines.js';
import type { RunExtras } from './extras.js';
import type { BenchRun } from './run.js';
import type { ReceiverCommand, ReceiverReport } from './receiver-process.js';
import type { Scenario } from './scenarios.js';

/** The rate (#34): W's drain must reach it, and A-1000 and A+hooks-1000 verify (and deliver) at it. */
export const TARGET_DELIVERIES_PER_SEC = 1000;
/** The paced pairs' rates: the issue's, and half of it, below what this 2-core machine saturates at with endpoints. */
export const PACED_RATES = [TARGET_DELIVERIES_PER_SEC, TARGET_DELIVERIES_PER_SEC / 2];
/** How long the bench waits for the last deliveries of a run: no new one for this long ends the wait. */
const STALL_MS = 10_000;
/** After a load's own deliveries, how long a quiet receiver means nothing more is coming. */
export const IN_FLIGHT_SETTLE_MS = 1000;

export interface DeliveryReceiver {
  /** Endpoint URL of one account (its path names the account, whose secret checks the signature). */
  urlFor(accountId: string): string;
  /** Tells the receiver an account's signing secret, as `webhooks add` returned it; resolves once the receiver keeps it. */
  addSecret(accountId: string, secret: string): Promise<void>;
  /** Accounts whose secrets the receiver keeps. */
  accounts: Set<string>;
  /** Deliveries with a good signature, each event counted once. */
  delivered: number;
  /** A good signature on an event already delivered (at least once: a retry). */
  duplicates: number;
  /** Refused with 400: no secret for the path, or the signature did not check. */
  badSignatures: number;
  /** Event-to-delivery lag of each delivery counted, ms, in arrival order. */
  lagsMs: number[];
  /** performance.now() of the last delivery counted. */
  lastAt: number;
  /** Deliveries read but not yet answered nor counted, while the receiver is held. */
  parked: number;
  /** Answers (and counts) the parked deliveries, then every one at once from now on. */
  release(): void;
  close(): Promise<void>;
}

/**
 * The receiver process (receiver-process.ts), seen through counts it reports.
 * `held`: every delivery is read and then left unanswered until release():
 * the worker's attempts under way wait for their answers, so it claims no
 * more, and the events written meanwhile stay pending, untouched (W's backlog).
 */
export async function startDeliveryReceiver(opts: { held?: boolean } = {}): Promise<DeliveryReceiver> {
  // Under tsx's loader, named by path: the bench and the tests (vitest's own workers) start it alike.
  const child = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), opts.held ? ['--held'] : [], {
    execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const command = (c: ReceiverCommand) => child.send(c);
  const exited = once(child, 'exit');
  const keptWaiters = new Map<string, () => void>();
  const receiver: DeliveryReceiver = {
    urlFor: (accountId) => `${base}/${accountId}`,
    addSecret: async (accountId, secret) => {
      const kept = new Promise<void>((resolve) => keptWaiters.set(accountId, resolve));
      command({ type: 'secret', accountId, secret });
      await kept;
    },
    accounts: new Set(),
    delivered: 0,
    duplicates: 0,
    badSignatures: 0,
    lagsMs: [],
    lastAt: 0,
    parked: 0,
    release: () => {
      if (child.connected) command({ type: 'release' });
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  child.on('message', (report: ReceiverReport) => {
    if (report.type === 'secret') {
      receiver.accounts.add(report.accountId);
      keptWaiters.get(report.accountId)?.();
      keptWaiters.delete(report.accountId);
    }
    if (report.type !== 'counts') return;
    Object.assign(receiver, { delivered: report.delivered, duplicates: report.duplicates, badSignatures: report.badSignatures, parked: report.parked });
    // Its clock to ours: both are the machine's, at the same origin (the epoch).
    if (report.lastAtEpochMs > 0) receiver.lastAt = report.lastAtEpochMs - performance.timeOrigin;
    for (const lag of report.newLagsMs) receiver.lagsMs.push(lag);
  });
  const [ready] = (await Promise.race([once(child, 'message'), exited.then(() => Promise.reject(new Error('the webhook receiver process exited before it was ready')))])) as [ReceiverReport];
  if (ready.type !== 'ready') throw new Error(`the webhook receiver process said ${ready.type} before it was ready`);
  const base = ready.base;
  return receiver;
}

/** A receiver with every bench account's endpoint at it; the receiver is closed again when the endpoints cannot be added. */
export async function receiverWithEndpoints(db: BenchDatabase, opts: { held?: boolean } = {}): Promise<{ receiver: DeliveryReceiver; endpoints: string[] }> {
  const receiver = await startDeliveryReceiver(opts);
  try {
    return { receiver, endpoints: await addEndpoints(db, receiver) };
  } catch (err) {
    await receiver.close();
    throw err;
  }
}

/** One endpoint per account of `db` at `receiver`, for verification.succeeded; returns their ids. */
export async function addEndpoints(db: BenchDatabase, receiver: DeliveryReceiver): Promise<string[]> {
  const store = await openStore(db.url);
  try {
    // The receiver listens on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true, as startSlipgate sets).
    const { webhooks } = storeServices(store, { allowPrivateWebhooks: true });
    const ids: string[] = [];
    for (const account of (await store.listAccounts({ limit: 1000 })).items) {
      const { endpoint, secret } = await webhooks.add('bench', account.id, { url: receiver.urlFor(account.id), events: ['verification.succeeded'], reason: 'bench --webhooks' });
      await receiver.addSecret(account.id, secret);
      ids.push(endpoint.id);
    }
    return ids;
  } finally {
    await store.close();
  }
}

export async function removeEndpoints(db: BenchDatabase, ids: string[]): Promise<void> {
  const store = await openStore(db.url);
  try {
    const { webhooks } = storeServices(store);
    for (const id of ids) await webhooks.remove('bench', id, 'bench --webhooks: run over');
  } finally {
    await store.close();
  }
}

/** Waits until `receiver` has counted `count` deliveries, or none came for `stallMs`. */
export async function deliveriesReach(receiver: DeliveryReceiver, count: number, stallMs = STALL_MS): Promise<void> {
  let last = receiver.delivered;
  let lastChange = performance.now();
  while (receiver.delivered < count && performance.now() - lastChange < stallMs) {
    await sleep(50);
    if (receiver.delivered !== last) [last, lastChange] = [receiver.delivered, performance.now()];
  }
}

/**
 * A+hooks and the paced pairs under --webhooks (A+drain is
 * drain-beside-a.ts's; W, not a load run, drain.ts's). A+hooks is A's closed
 * loop: as fast as answers come, so on a saturated machine its p99 is the
 * connections over the answers a second (Little's law), and every
 * microsecond a delivery costs anywhere on the machine (slipgate, the
 * receiver, the load generator) shows in it as capacity. A-<rate> and
 * A+hooks-<rate> offer a fixed rate on an open loop (paced-load.ts), each
 * verification an event, without and with endpoints: what delivering at
 * that rate does to the answers' latency.
 */
export function webhookVariants(run: BenchRun): Scenario[] {
  if (!run.args.webhooks) return [];
  const per = (rate: number) => `offered ${rate.toLocaleString('en-US')} verifications/s on an open loop`;
  return [
    { ...run.scenarios.A, id: 'A+hooks', title: 'as A, every account with a webhook endpoint (the delivery worker busy)', webhooks: true },
    ...PACED_RATES.flatMap((rate): Scenario[] => [
      { ...run.scenarios.A, overallRate: rate, paced: true, id: `A-${rate}`, title: `as A, ${per(rate)}` },
      { ...run.scenarios.A, overallRate: rate, paced: true, id: `A+hooks-${rate}`, title: `as A+hooks, ${per(rate)} (as many events)`, webhooks: true },
    ]),
  ];
}

/** What an A+hooks run delivered: its events (its successes), and when they arrived. */
export interface DeliveryFigures {
  /** verification.succeeded events of the measured run: its successes (requests in flight at its end may add a few more deliveries). */
  events: number;
  /** Successes per second of the run: the rate events were produced at. */
  eventsPerSec: number;
  /** Of them, delivered while the load ran, and when it ended not yet. */
  duringLoad: number;
  backlogAtEnd: number;
  /** The run's deliveries per second, from the run's start to the last one's arrival. */
  deliveredPerSec: number;
  /** From the end of the load to the last delivery. */
  drainSec: number;
  /** Not delivered when the bench stopped waiting (no delivery for STALL_MS). */
  undelivered: number;
  lagMs: { p50: number; p99: number; max: number };
  duplicates: number;
  badSignatures: number;
}

const at = (sorted: number[], q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);

/** measure()'s part for A+hooks: endpoints before slipgate starts, warm-up's deliveries drained, the run's counted after it. */
export async function webhookExtras(run: BenchRun, scenario: Scenario, db: BenchDatabase): Promise<RunExtras> {
  const { receiver, endpoints } = await receiverWithEndpoints(db);
  const window = { delivered: 0, lags: 0, startedAt: 0, badSignatures: 0, duplicates: 0 };
  return {
    // The warm-up's events are delivered before the run starts, so the run's figures are its own.
    warmedUp: async (warmup) => {
      await deliveriesReach(receiver, warmup?.successes ?? 0);
      // Its requests in flight when it stopped are settled too: their events come last.
      await deliveriesReach(receiver, Number.POSITIVE_INFINITY, IN_FLIGHT_SETTLE_MS);
      Object.assign(window, { delivered: receiver.delivered, lags: receiver.lagsMs.length, startedAt: performance.now(), badSignatures: receiver.badSignatures, duplicates: receiver.duplicates });
    },
    measured: async (result) => {
      const endedAt = performance.now();
      const duringLoad = receiver.delivered - window.delivered;
      const events = result.successes;
      await deliveriesReach(receiver, window.delivered + events);
      // Requests still in flight when the load stopped may have been settled too: their events come last.
      await deliveriesReach(receiver, Number.POSITIVE_INFINITY, IN_FLIGHT_SETTLE_MS);
      const delivered = receiver.delivered - window.delivered;
      const lags = receiver.lagsMs.slice(window.lags).sort((x, y) => x - y);
      const lastAt = delivered > 0 ? receiver.lastAt : endedAt;
      const deliveries: DeliveryFigures = {
        events,
        eventsPerSec: result.successes / result.durationSec,
        duringLoad,
        backlogAtEnd: Math.max(0, events - duringLoad),
        deliveredPerSec: delivered / ((lastAt - window.startedAt) / 1000),
        drainSec: Math.max(0, (lastAt - endedAt) / 1000),
        undelivered: Math.max(0, events - delivered),
        lagMs: { p50: at(lags, 0.5), p99: at(lags, 0.99), max: at(lags, 1) },
        duplicates: receiver.duplicates - window.duplicates,
        badSignatures: receiver.badSignatures - window.badSignatures,
      };
      run.say(
        `${scenario.id}: ${deliveries.events} events (${deliveries.eventsPerSec.toFixed(0)}/s), ${deliveries.deliveredPerSec.toFixed(0)} delivered/s, ` +
          `backlog ${deliveries.backlogAtEnd} at the end, lag p50 ${deliveries.lagMs.p50.toFixed(0)} p99 ${deliveries.lagMs.p99.toFixed(0)} ms, ` +
          `${deliveries.undelivered} undelivered, ${deliveries.badSignatures} bad signatures`,
      );
      return { deliveries };
    },
    close: async () => {
      await removeEndpoints(db, endpoints);
      await receiver.close();
    },
  };
}
