// Drives one load run with autocannon: every request carries a distinct
// valid slip QR and one of the bench API keys (round-robin). Latencies are
// recorded at full precision here (autocannon's histogram keeps whole ms,
// too coarse for the 2 ms added-latency target).
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  durationSec: number;
  /** Requests per second offered in total (open-loop-ish); unset = as fast as possible. */
  overallRate?: number;
  apiKeys: string[];
  /** Yields request bodies, each with a QR not sent before. */
  nextBody: () => string;
  /** Yields each request's body with the key it must go with (a payment request is its account's), instead of nextBody and the keys in turn. */
  nextKeyed?: () => { apiKey: string; body: string };
  /** Sent with every request besides content-type and x-api-key (scenario F: X-Forwarded-For). */
  headers?: Record<string, string>;
  /** Stop after this many requests instead of after durationSec. */
  amount?: number;
  /** Stop early once this settles (scenario F: the valid load ends with the flood). */
  until?: Promise<unknown>;
  /** Answers to count by a text they hold, by name (receivers/policy.ts: refusals with 1025). */
  marks?: Record<string, string>;
}

export interface LoadResult {
  durationSec: number;
  /** Requests sent; those neither answered nor failed were in flight when the run ended. */
  sent: number;
  responses: number;
  successes: number;
  /** Answered, but not `"status":"success"` (any HTTP status). */
  failures: number;
  /** Socket errors and timeouts (no answer at all). */
  errors: number;
  statusCodes: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** A few distinct failure bodies, to say what went wrong. */
  failureSamples: string[];
  /** Answers holding each of LoadSpec.marks' texts, by its name. */
  marked: Record<string, number>;
}

const PATH = '/api/v1/verify';
const SUCCESS_PREFIX = '{"status":"success"';

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let keyIndex = 0;
  let successes = 0;
  let failures = 0;
  const failureSamples = new Set<string>();
  const latencies = new Latencies();
  const marks = Object.entries(spec.marks ?? {});
  const marked: Record<string, number> = Object.fromEntries(marks.map(([name]) => [name, 0]));
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSec }),
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: PATH,
            setupRequest: (req) => {
              const { apiKey, body } = spec.nextKeyed?.() ?? { apiKey: spec.apiKeys[keyIndex++ % spec.apiKeys.length]!, body: spec.nextBody() };
              return { ...req, headers: { ...spec.headers, 'content-type': 'application/json', 'x-api-key': apiKey }, body };
            },
            onResponse: (_status, body) => {
              for (const [name, text] of marks) if (body.includes(text)) marked[name]!++;
              if (body.startsWith(SUCCESS_PREFIX)) successes++;
              else {
                failures++;
                if (failureSamples.size < 5) failureSamples.add(body.slice(0, 200));
              }
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
        resolve({
          durationSec: result.duration,
          sent: result.requests.sent,
          responses: latencies.count,
          successes,
          failures,
          errors: result.errors,
          statusCodes,
          latencyMs: latencies.summary(),
          failureSamples: [...failureSamples],
          marked,
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.add(responseTime));
    void spec.until?.then(() => instance.stop());
  });
}

export class Latencies {
  private values = new Float64Array(1 << 16);
  count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }

  summary(): LoadResult['latencyMs'] {
    const sorted = this.values.slice(0, this.count).sort();
    const at = (q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
    return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
  }
}
