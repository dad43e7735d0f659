// Where a process's /metrics text comes from: its own registry, or in a
// node:cluster worker the whole cluster's figures through the primary.
import cluster from 'node:cluster';
import { workerMetrics } from './cluster.js';
import type { Metrics } from './metrics.js';

export function metricsText(metrics: Metrics): { text(): Promise<string>; stop(): void } {
  if (cluster.isWorker && process.send) {
    const worker = workerMetrics(metrics);
    return { text: () => worker.clusterText(), stop: worker.stop };
  }
  return { text: () => metrics.text(), stop: () => {} };
}
