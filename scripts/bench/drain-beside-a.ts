// A+drain (--webhooks): A's load while the delivery worker drains a backlog
// at full speed, alternated with A alone: what delivery as fast as the
// worker goes costs A's p99. The backlog is W's (drain.ts): built through the
// verify path once slipgate is ready, behind a receiver that holds its
// answers; the warm-up's events join it. The receiver opens as the measured
// run starts. If the backlog runs out before the run ends, the worker was
// not busy all the time, and the figures say so (left at the end: 0).
import { performance } from 'node:perf_hooks';
import type { BenchDatabase } from './engines.js';
import type { RunExtras } from './extras.js';
import { backlogSize, buildBacklog, HOLD_ENV } from './drain.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';
import { deliveriesReach, IN_FLIGHT_SETTLE_MS, receiverWithEndpoints, removeEndpoints } from './webhooks.js';

/** What A+drain's row carries besides A's figures. */
export interface DrainBesideFigures {
  /** Events waiting when the measured run started: the backlog built, with the warm-up's. */
  backlog: number;
  /** Delivered during the measured run, and per second of it. */
  duringRun: number;
  perSec: number;
  /** Events (the backlog's and the run's) not yet delivered when the run ended: 0 means the worker ran out of work. */
  leftAtEnd: number;
  /** Of every event, not delivered when the bench stopped waiting (none for 10 s). */
  undelivered: number;
  badSignatures: number;
  duplicates: number;
}

/** A+drain under --webhooks, or undefined. */
export function drainVariant(run: BenchRun): Scenario | undefined {
  if (!run.args.webhooks) return undefined;
  const backlog = backlogSize(run).toLocaleString('en-US');
  return { ...run.scenarios.A, id: 'A+drain', title: `as A, the webhook worker draining a backlog of ${backlog} deliveries beside it`, drain: true, slipgateEnv: HOLD_ENV };
}

/** measure()'s part for A+drain: endpoints at a held receiver, the backlog once slipgate is ready, the receiver opened for the run. */
export async function drainBesideExtras(run: BenchRun, scenario: Scenario, engine: string, db: BenchDatabase, keys: string[]): Promise<RunExtras> {
  const { receiver, endpoints } = await receiverWithEndpoints(db, { held: true });
  let built = 0;
  let waiting = 0;
  let startedAt = 0;
  return {
    ready: async (url) => {
      const count = backlogSize(run);
      run.say(`${scenario.id}/${engine}: building a backlog of ${count.toLocaleString('en-US')} webhook deliveries behind a held receiver (not measured)`);
      built = (await buildBacklog(url, keys, count)).successes;
      return {};
    },
    warmedUp: async (warmup) => {
      waiting = built + (warmup?.successes ?? 0);
      startedAt = performance.now();
      receiver.release();
    },
    measured: async (result) => {
      // From the opening (just before the run's start) to now (just after its end).
      const duringRun = receiver.delivered;
      const runSec = (performance.now() - startedAt) / 1000;
      const events = waiting + result.successes;
      // Every event delivered before the endpoints go: none is left pending for a later run's worker.
      await deliveriesReach(receiver, events);
      await deliveriesReach(receiver, Number.POSITIVE_INFINITY, IN_FLIGHT_SETTLE_MS);
      const drained: DrainBesideFigures = {
        backlog: waiting,
        duringRun,
        perSec: duringRun / runSec,
        leftAtEnd: Math.max(0, events - duringRun),
        undelivered: Math.max(0, events - receiver.delivered),
        badSignatures: receiver.badSignatures,
        duplicates: receiver.duplicates,
      };
      run.say(
        `${scenario.id}/${engine}: ${drained.duringRun} of a backlog of ${drained.backlog} delivered during the run (${drained.perSec.toFixed(0)}/s), ` +
          `${drained.leftAtEnd} left at its end${drained.leftAtEnd === 0 ? ' (the backlog ran out)' : ''}, ${drained.undelivered} undelivered, ${drained.badSignatures} bad signatures`,
      );
      return { drained };
    },
    close: async () => {
      receiver.release();
      await removeEndpoints(db, endpoints);
      await receiver.close();
    },
  };
}
