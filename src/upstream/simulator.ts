// A stand-in bank verification network for local runs, demos and load tests
// (`slipgate simulate-bank`). It speaks the real KBank or SCB protocol and
// answers every slip from its transRef, like the sandbox.
import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SimulatedBankState, type BankBehavior, type BankCredentials } from './simulator/bank-state.js';
import { createKbankResponder } from './simulator/kbank-responder.js';
import { createScbResponder } from './simulator/scb-responder.js';

export type SimulatedProvider = 'kbank' | 'scb';

export interface SimulatedBankOptions {
  provider: SimulatedProvider;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  latencyMs?: number;
  /** Share (0..1) of verify calls answered with HTTP 500. */
  errorRate?: number;
  /** Credentials the bank accepts; defaults to SIMULATOR_CREDENTIALS. */
  credentials?: BankCredentials;
  behavior?: Partial<BankBehavior>;
  random?: () => number;
}

export interface SimulatedBank {
  url: string;
  port: number;
  provider: SimulatedProvider;
  credentials: BankCredentials;
  /** Knobs and counters; change `state.behavior` at any time. */
  state: SimulatedBankState;
  close(): Promise<void>;
}

/** Not secrets: the simulator is for local use only. */
export const SIMULATOR_CREDENTIALS: Record<SimulatedProvider, BankCredentials> = {
  kbank: { id: 'sim-kbank-client-id', secret: 'sim-kbank-client-secret' },
  scb: { id: 'sim-scb-api-key', secret: 'sim-scb-api-secret' },
};

export function createBankResponder(provider: SimulatedProvider, state: SimulatedBankState): RequestListener {
  return provider === 'kbank' ? createKbankResponder(state) : createScbResponder(state);
}

export async function startSimulatedBank(opts: SimulatedBankOptions): Promise<SimulatedBank> {
  const credentials = opts.credentials ?? SIMULATOR_CREDENTIALS[opts.provider];
  const state = new SimulatedBankState(
    credentials,
    { ...opts.behavior, latencyMs: opts.latencyMs ?? opts.behavior?.latencyMs ?? 0, errorRate: opts.errorRate ?? opts.behavior?.errorRate ?? 0 },
    opts.random,
  );
  const server = createServer(createBankResponder(opts.provider, state));
  await listen(server, opts.port, opts.host ?? '127.0.0.1');
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    port,
    provider: opts.provider,
    credentials,
    state,
    close: () => closeServer(server),
  };
}

/** Either kind of listening server (the test fakes also speak mutual TLS). */
export type AnyHttpServer = HttpServer | HttpsServer;

export function listen(server: AnyHttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A large backlog so benchmark bursts are not dropped before accept().
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops listening and drops every connection, hanging requests included. */
export function closeServer(server: AnyHttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
