// An open-loop load for the paced scenarios (A-paced, A+hooks-paced):
// requests start on a fixed schedule, `overallRate` a second in ticks of
// TICK_MS, whether or not earlier ones were answered, and each latency is
// counted from the request's scheduled start, so time spent waiting for a
// free connection counts too (no coordinated omission). autocannon's
// overallRate is not that: it is a per-second budget the connections spend
// as fast as answers come, a closed loop in bursts, and against a server
// that can answer faster than the rate it measures the closed loop's
// latency. Keep-alive connections, at most `connections` at once.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Latencies, type LoadResult, type LoadSpec } from './load.js';

const PATH = '/api/v1/verify';
const SUCCESS_PREFIX = '{"status":"success"';
/** The schedule's step: requests due are started every this many ms. */
const TICK_MS = 2;
/** How long answers still in flight are waited for once the schedule ends. */
const DRAIN_MS = 30_000;

export function runPacedLoad(spec: LoadSpec & { overallRate: number }): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const url = new URL(PATH, spec.url);
  const latencies = new Latencies();
  const marks = Object.entries(spec.marks ?? {});
  const result: Omit<LoadResult, 'latencyMs' | 'durationSec' | 'responses'> = { sent: 0, successes: 0, failures: 0, errors: 0, statusCodes: {}, failureSamples: [], marked: Object.fromEntries(marks.map(([name]) => [name, 0])) };
  let keyIndex = 0;
  let inFlight = 0;
  const intervalMs = 1000 / spec.overallRate;
  const total = Math.round(spec.overallRate * spec.durationSec);

  const send = (scheduledAt: number, done: () => void) => {
    const { apiKey, body } = spec.nextKeyed?.() ?? { apiKey: spec.apiKeys[keyIndex++ % spec.apiKeys.length]!, body: spec.nextBody() };
    const payload = Buffer.from(body);
    result.sent++;
    inFlight++;
    const finish = () => {
      inFlight--;
      done();
    };
    const req = request(url, { method: 'POST', agent, headers: { ...spec.headers, 'content-type': 'application/json', 'content-length': payload.length, 'x-api-key': apiKey } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        latencies.add(performance.now() - scheduledAt);
        const text = Buffer.concat(chunks).toString('utf8');
        const code = String(res.statusCode);
        result.statusCodes[code] = (result.statusCodes[code] ?? 0) + 1;
        for (const [name, mark] of marks) if (text.includes(mark)) result.marked[name]!++;
        if (text.startsWith(SUCCESS_PREFIX)) result.successes++;
        else {
          result.failures++;
          if (result.failureSamples.length < 5 && !result.failureSamples.includes(text.slice(0, 200))) result.failureSamples.push(text.slice(0, 200));
        }
        finish();
      });
      res.on('error', () => {
        result.errors++;
        finish();
      });
    });
    req.on('error', () => {
      result.errors++;
      finish();
    });
    req.end(payload);
  };

  return new Promise((resolve) => {
    const started = performance.now();
    let scheduled = 0;
    let ended = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(drainTimer);
      agent.destroy();
      resolve({ ...result, durationSec: spec.durationSec, responses: latencies.count, latencyMs: latencies.summary() });
    };
    const answered = () => {
      if (scheduled === total && inFlight === 0) end();
    };
    const tick = setInterval(() => {
      // Every request whose time has come, each with its own scheduled start.
      const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
      while (scheduled < due) send(started + scheduled++ * intervalMs, answered);
      if (scheduled === total) {
        clearInterval(tick);
        drainTimer = setTimeout(end, DRAIN_MS);
        answered();
      }
    }, TICK_MS);
  });
}
