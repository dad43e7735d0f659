// A loopback TCP proxy between slipgate and a real server (PostgreSQL), so a
// test can take the database "down" for one slipgate without touching the
// server everyone else shares. It keeps listening on the same port all the
// time; only what happens to connections changes.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * - `reset`: every open connection is torn down and new ones are dropped at
 *   once (the server crashed or restarted; clients see ECONNRESET).
 * - `blackhole`: nothing gets through in either direction and nothing is
 *   closed (a network partition; clients only notice through their timeouts).
 */
type CutMode = 'reset' | 'blackhole';

export interface TcpProxy {
  port: number;
  /** Connections accepted so far (reconnects show up here). */
  readonly accepted: number;
  /** Bytes clients sent that a blackhole swallowed: requests that never reached the server. */
  readonly swallowed: number;
  cut(mode: CutMode): void;
  /** Lets traffic through again; connections stuck in a blackhole are closed. */
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: CutMode | null = null;
  let accepted = 0;
  let swallowed = 0;

  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.server.destroy();
    pairs.delete(pair);
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on('error', () => {});
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => {});
    const pair = { client, server: upstream };
    pairs.add(pair);
    // Bytes are forwarded by hand so a blackhole can swallow them.
    client.on('data', (chunk) => {
      if (mode === null) upstream.write(chunk);
      else swallowed += chunk.length;
    });
    upstream.on('data', (chunk) => {
      if (mode === null) client.write(chunk);
    });
    client.on('close', () => drop(pair));
    upstream.on('close', () => drop(pair));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    get swallowed() {
      return swallowed;
    },
    cut(next) {
      mode = next;
      if (next === 'reset') {
        for (const pair of [...pairs]) {
          pair.client.resetAndDestroy();
          drop(pair);
        }
      }
    },
    restore() {
      // A connection that lost bytes in the hole is out of step with the server.
      if (mode === 'blackhole') for (const pair of [...pairs]) drop(pair);
      mode = null;
    },
    async close() {
      for (const pair of [...pairs]) drop(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
