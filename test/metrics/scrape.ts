// Reads /metrics over real HTTP and looks samples up by name and labels.
import { request } from 'node:http';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  text: string;
  samples: Sample[];
  /** Names declared with # TYPE. */
  types: Map<string, string>;
  /** The sample's value; 0 when there is none (a counter never incremented). */
  value(name: string, labels?: Record<string, string>): number;
  /** Sum over every sample of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseMetrics(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    text,
    samples,
    types,
    value(name, labels = {}) {
      const found = matching(name, labels).filter((s) => Object.keys(s.labels).length === Object.keys(labels).length);
      if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
      return found[0]?.value ?? 0;
    },
    sum: (name, labels = {}) => matching(name, labels).reduce((a, s) => a + s.value, 0),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET on a fresh connection (no keep-alive), so cluster workers take turns. */
export function get(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function scrape(adminUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await get(`${adminUrl}/metrics`, headers);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.body}`);
  return parseMetrics(res.body);
}

/** POST /api/v1/verify on a fresh connection (no keep-alive), so cluster workers take turns. */
export function verifyFresh(publicUrl: string, apiKey: string, qrcode: string): Promise<{ status: number; body: { status: string; code?: number; message: string } }> {
  const payload = JSON.stringify({ qrcode });
  return new Promise((resolve, reject) => {
    const req = request(
      `${publicUrl}/api/v1/verify`,
      { method: 'POST', agent: false, headers: { connection: 'close', 'content-type': 'application/json', 'x-api-key': apiKey, 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
