// A stand-in bank verification network for local runs, demos and load tests
// (`slipgate simulate-bank`). It speaks a registered provider's real protocol
// (its descriptor's responder) and answers every slip from its transRef, like
// the sandbox.
import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { BankSimulator } from '../provider.js';
import { bankProvider } from '../registry.js';
import { SimulatedBankState, type BankBehavior, type BankCredentials } from './bank-state.js';

/** The id of a registered provider that has a simulator. */
export type SimulatedProvider = string;

export interface SimulatedBankOptions {
  provider: SimulatedProvider;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  latencyMs?: number;
  /** Share (0..1) of verify calls answered with HTTP 500. */
  errorRate?: number;
  /** Credentials the bank accepts; defaults to the provider's simulator credentials. */
  credentials?: BankCredentials;
  behavior?: Partial<BankBehavior>;
  random?: () => number;
  /** The bank's clock (ms), for tokens and late transactions; tests move it instead of waiting. */
  now?: () => number;
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

export function bankSimulator(provider: SimulatedProvider): BankSimulator {
  const simulator = bankProvider(provider)?.simulator;
  if (!simulator) throw new Error(`bank provider "${provider}" has no simulator`);
  return simulator;
}

export function createBankResponder(provider: SimulatedProvider, state: SimulatedBankState): RequestListener {
  return bankSimulator(provider).responder(state);
}

export async function startSimulatedBank(opts: SimulatedBankOptions): Promise<SimulatedBank> {
  const credentials = opts.credentials ?? bankSimulator(opts.provider).credentials;
  const state = new SimulatedBankState(
    credentials,
    { ...opts.behavior, latencyMs: opts.latencyMs ?? opts.behavior?.latencyMs ?? 0, errorRate: opts.errorRate ?? opts.behavior?.errorRate ?? 0 },
    opts.random,
    opts.now,
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
