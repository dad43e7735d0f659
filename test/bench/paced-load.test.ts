// The bench's open-loop load (paced-load.ts) against a real local server
// that answers after 100 ms: requests start on the schedule whatever the
// answers do (several in flight at once, not one per connection), every one
// is counted, and a latency runs from the request's scheduled start, so a
// server too slow for the rate shows in it (no coordinated omission).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPacedLoad } from '../../scripts/bench/paced-load.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** Answers every POST with a success after `delayMs`; tracks how many were open at once. */
async function slowServer(delayMs: number) {
  const seen = { requests: 0, open: 0, mostOpen: 0, keys: new Set<string>() };
  const server = createServer((req, res) => {
    seen.requests++;
    seen.open++;
    seen.mostOpen = Math.max(seen.mostOpen, seen.open);
    seen.keys.add(String(req.headers['x-api-key']));
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        seen.open--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","data":{}}');
      }, delayMs),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('bench paced load', () => {
  it('starts requests on its schedule, not when answers come, and counts each one', async () => {
    const { url, seen } = await slowServer(100);
    const result = await runPacedLoad({ url, connections: 50, durationSec: 1, overallRate: 50, apiKeys: ['k1', 'k2'], nextBody: () => '{}' });
    expect(result).toMatchObject({ sent: 50, responses: 50, successes: 50, failures: 0, errors: 0, statusCodes: { '200': 50 } });
    // One every 20 ms, each answered after 100 ms: about five open at once.
    expect(seen.mostOpen).toBeGreaterThanOrEqual(3);
    expect([...seen.keys].sort()).toEqual(['k1', 'k2']);
    expect(result.latencyMs.p50).toBeGreaterThanOrEqual(100);
  });

  it('counts the wait for a connection in the latency: a server too slow for the rate shows', async () => {
    const { url } = await slowServer(100);
    // Two connections serve 20 a second; 50 are scheduled within a second, so the last waits about 1.5 s.
    const result = await runPacedLoad({ url, connections: 2, durationSec: 1, overallRate: 50, apiKeys: ['k'], nextBody: () => '{}' });
    expect(result.successes).toBe(50);
    expect(result.latencyMs.max).toBeGreaterThanOrEqual(1_000);
  });
});
