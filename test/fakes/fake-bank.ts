// A simulated bank on a real loopback port with the knobs tests need. The
// protocol itself lives in src/upstream/simulator (written once).
import { createServer, type RequestListener } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { closeServer, createBankResponder, listen, type SimulatedProvider } from '../../src/upstream/simulator.js';
import { SimulatedBankState, type BankBehavior, type BankCalls, type BankCredentials } from '../../src/upstream/simulator/bank-state.js';

export interface FakeBankOptions {
  behavior?: Partial<BankBehavior>;
  credentials?: BankCredentials;
  random?: () => number;
  /** Serve HTTPS and demand a client certificate signed by `ca` (mutual TLS). */
  tls?: { cert: string; key: string; ca: string };
}

/** One verify request held at the bank: the test decides when it is answered. */
export interface HeldVerify {
  /** Resolves when the verify request has arrived (the caller is waiting for the bank). */
  arrived: Promise<void>;
  /** Lets the bank answer it. */
  release(): void;
  /** Resolves once the whole answer was written to the socket (the bank has answered). */
  answered: Promise<void>;
}

/** How one request to the bank ended, in the order they ended. */
export interface Exchange {
  /** `token` or `verify`. */
  call: 'token' | 'verify';
  /** answered: the whole answer was written; abandoned: the caller left first. */
  outcome: 'answered' | 'abandoned';
}

export interface FakeBank {
  url: string;
  port: number;
  credentials: BankCredentials;
  /** Live counters of token and verify calls. */
  calls: BankCalls;
  /** The bank's record of how each request ended. */
  exchanges: Exchange[];
  state: SimulatedBankState;
  setBehavior(patch: Partial<BankBehavior>): void;
  /** Holds the next verify request (token calls pass) until `release()`. */
  holdNextVerify(): HeldVerify;
  /** Every issued token stops working; the next verify gets 401. */
  expireTokens(): void;
  /** Closes the listening socket and drops open connections: connects are refused. */
  refuseConnections(): Promise<void>;
  /** Listens again on the same port. */
  acceptConnections(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeBank(provider: SimulatedProvider, credentials: BankCredentials, opts: FakeBankOptions = {}): Promise<FakeBank> {
  const state = new SimulatedBankState(opts.credentials ?? credentials, opts.behavior, opts.random);
  const responder = createBankResponder(provider, state);
  let held: { arrive(): void; released: Promise<void>; answer(): void } | null = null;
  const exchanges: Exchange[] = [];
  const handler: RequestListener = (req, res) => {
    const isToken = /\/oauth\/token$/.test(new URL(req.url ?? '/', 'http://bank').pathname);
    let finished = false;
    res.once('finish', () => (finished = true));
    res.once('close', () => exchanges.push({ call: isToken ? 'token' : 'verify', outcome: finished ? 'answered' : 'abandoned' }));
    if (!held || isToken) return responder(req, res);
    const h = held;
    held = null;
    h.arrive();
    void h.released.then(() => {
      res.once('finish', h.answer);
      responder(req, res);
    });
  };
  const server = opts.tls ? createTlsServer({ ...opts.tls, requestCert: true, rejectUnauthorized: true }, handler) : createServer(handler);
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    credentials: state.credentials,
    calls: state.calls,
    exchanges,
    state,
    setBehavior(patch) {
      state.behavior = { ...state.behavior, ...patch };
    },
    holdNextVerify() {
      let arrive!: () => void;
      let release!: () => void;
      let answer!: () => void;
      const arrived = new Promise<void>((r) => (arrive = r));
      const released = new Promise<void>((r) => (release = r));
      const answered = new Promise<void>((r) => (answer = r));
      held = { arrive, released, answer };
      return { arrived, release, answered };
    },
    expireTokens: () => state.expireTokens(),
    refuseConnections: () => closeServer(server),
    async acceptConnections() {
      if (!server.listening) await listen(server, port, '127.0.0.1');
    },
    close: () => closeServer(server),
  };
}
