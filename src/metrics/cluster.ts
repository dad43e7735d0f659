// /metrics under `serve --workers N`: the workers share the admin listener,
// so whichever worker a scrape reaches asks the primary, which collects
// every ready worker's figures over IPC and adds them up with prom-client's
// AggregatorRegistry. Any worker's answer is the whole cluster's.
import type { Worker } from 'node:cluster';
import type { Metrics, MetricsJson } from './metrics.js';

const REQUEST = 'slipgate:metrics-request';
const COLLECT = 'slipgate:metrics-collect';
const PART = 'slipgate:metrics-part';
const RESPONSE = 'slipgate:metrics-response';

/** A worker that does not answer in time (busy, dying) is left out of that scrape. */
const COLLECT_TIMEOUT_MS = 3_000;

interface Message {
  type?: unknown;
  id?: unknown;
  metrics?: MetricsJson;
  text?: string;
  error?: string;
}

const asMessage = (m: unknown): Message => (typeof m === 'object' && m !== null ? (m as Message) : {});

/**
 * Worker side: answers the primary's collection requests with this
 * process's figures, and returns the function /metrics calls for the
 * cluster's text. Needs an IPC channel (a node:cluster worker).
 */
export function workerMetrics(metrics: Metrics): { clusterText(): Promise<string>; stop(): void } {
  let next = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  const onMessage = (raw: unknown) => {
    const message = asMessage(raw);
    if (message.type === COLLECT) {
      metrics.json().then(
        (json) => process.send?.({ type: PART, id: message.id, metrics: json }),
        (err: unknown) => process.send?.({ type: PART, id: message.id, error: String(err) }),
      );
    } else if (message.type === RESPONSE && typeof message.id === 'number') {
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.text ?? '');
    }
  };
  process.on('message', onMessage);
  return {
    clusterText: () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the cluster primary did not answer the metrics request'));
        }, COLLECT_TIMEOUT_MS * 2);
        waiting.set(id, {
          resolve: (text) => (clearTimeout(timer), resolve(text)),
          reject: (err) => (clearTimeout(timer), reject(err)),
        });
        process.send?.({ type: REQUEST, id });
      }),
    stop: () => process.off('message', onMessage),
  };
}

/** Primary side: call `handle` with every message a worker sends. */
export class MetricsHub {
  private next = 0;
  private readonly collecting = new Map<number, { parts: MetricsJson[]; left: Set<number>; done(): void }>();

  /** `workers` lists the workers that are up and answering (ready). */
  constructor(private readonly workers: () => Worker[]) {}

  /** True when the message was a metrics message. */
  handle(from: Worker, raw: unknown): boolean {
    const message = asMessage(raw);
    if (message.type === REQUEST) {
      void this.answer(from, message.id);
      return true;
    }
    if (message.type === PART && typeof message.id === 'number') {
      const round = this.collecting.get(message.id);
      if (round && round.left.delete(from.id)) {
        if (message.metrics) round.parts.push(message.metrics);
        if (round.left.size === 0) round.done();
      }
      return true;
    }
    return false;
  }

  private async answer(to: Worker, requestId: unknown): Promise<void> {
    try {
      const parts = await this.collect();
      const { AggregatorRegistry } = await import('prom-client');
      const text = await AggregatorRegistry.aggregate(parts).metrics();
      if (to.isConnected()) to.send({ type: RESPONSE, id: requestId, text });
    } catch (err) {
      if (to.isConnected()) to.send({ type: RESPONSE, id: requestId, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private collect(): Promise<MetricsJson[]> {
    const id = this.next++;
    const workers = this.workers().filter((w) => w.isConnected());
    return new Promise((resolve) => {
      const round = {
        parts: [] as MetricsJson[],
        left: new Set(workers.map((w) => w.id)),
        done: () => {
          clearTimeout(timer);
          this.collecting.delete(id);
          resolve(round.parts);
        },
      };
      const timer = setTimeout(round.done, COLLECT_TIMEOUT_MS);
      this.collecting.set(id, round);
      for (const worker of workers) worker.send({ type: COLLECT, id });
      if (workers.length === 0) round.done();
    });
  }
}
