// A simulated bank on a real loopback port with the knobs tests need. The
// protocol itself lives in src/upstream/simulator (written once).
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { closeServer, createBankResponder, listen, type SimulatedProvider } from '../../src/upstream/simulator/simulated-bank.js';
import { SimulatedBankState, type BankBehavior, type BankCalls, type BankCredentials } from '../../src/upstream/simulator/bank-state.js';

export interface FakeBankOptions {
  behavior?: Partial<BankBehavior>;
  credentials?: BankCredentials;
  random?: () => number;
  /** Serve HTTPS and demand a client certificate signed by `ca` (mutual TLS). */
  tls?: { cert: string; key: string; ca: string };
  /**
   * Closes every connection that has been idle this long, without announcing
   * it in a Keep-Alive header, as load balancers do. Unset: Node's defaults.
   */
  idleCloseMs?: number;
}

/** How a request that arrives on an already used connection is spoiled. */
export type ReusedConnectionFault =
  /** The connection is dropped before anything is answered. */
  | 'reset'
  /** Half a status line and header, then the connection is dropped. */
  | 'partial-head'
  /** Status and headers of a 200, part of the body, then the connection is dropped. */
  | 'partial-body';

interface BankTraffic {
  /** Connections accepted. */
  connections: number;
  /** Connections closed, by either side. */
  closed: number;
  /** Requests received, spoiled ones included. */
  requests: number;
  /** Requests spoiled by faultReusedConnections. */
  faults: number;
  /** Requests that asked for their connection to be closed afterwards (Connection: close). */
  oneShot: number;
}

/** One verify request held at the bank: the test decides when it is answered. */
interface HeldVerify {
  /** Resolves when the verify request has arrived (the caller is waiting for the bank). */
  arrived: Promise<void>;
  /** Lets the bank answer it. */
  release(): void;
  /** Resolves once the whole answer was written to the socket (the bank has answered). */
  answered: Promise<void>;
}

/** How one request to the bank ended, in the order they ended. */
interface Exchange {
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
  /** Live counters at the connection level. */
  traffic: BankTraffic;
  /** The bank's record of how each request ended. */
  exchanges: Exchange[];
  state: SimulatedBankState;
  /** The next `count` requests that arrive on an already used connection meet `fault`. */
  faultReusedConnections(fault: ReusedConnectionFault, count?: number): void;
  /** Resolves once `count` connections in all have closed. */
  connectionsClosed(count: number): Promise<void>;
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
  const traffic: BankTraffic = { connections: 0, closed: 0, requests: 0, faults: 0, oneShot: 0 };
  const closeEvents = new EventEmitter();
  const fault = { kind: 'reset' as ReusedConnectionFault, left: 0 };
  const responder = createBankResponder(provider, state);
  let held: { arrive(): void; released: Promise<void>; answer(): void } | null = null;
  const exchanges: Exchange[] = [];
  const holding: RequestListener = (req, res) => {
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
  const handler = connectionAware(holding, traffic, fault, opts.idleCloseMs);
  const server = opts.tls ? createTlsServer({ ...opts.tls, requestCert: true, rejectUnauthorized: true }, handler) : createServer(handler);
  server.on('connection', (socket: Socket) => {
    traffic.connections++;
    socket.once('close', () => {
      traffic.closed++;
      closeEvents.emit('close');
    });
  });
  // 0 turns off Node's own idle close and its "Keep-Alive: timeout=" hint.
  if (opts.idleCloseMs !== undefined) server.keepAliveTimeout = 0;
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    credentials: state.credentials,
    calls: state.calls,
    traffic,
    exchanges,
    state,
    faultReusedConnections(kind, count = 1) {
      fault.kind = kind;
      fault.left = count;
    },
    connectionsClosed: (count) =>
      new Promise((resolve) => {
        const check = () => {
          if (traffic.closed < count) return;
          closeEvents.off('close', check);
          resolve();
        };
        closeEvents.on('close', check);
        check();
      }),
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

/** Counts connections and requests, spoils requests on reused connections, closes idle ones. */
function connectionAware(
  responder: RequestListener,
  traffic: BankTraffic,
  fault: { kind: ReusedConnectionFault; left: number },
  idleCloseMs: number | undefined,
): RequestListener {
  const served = new WeakMap<Socket, number>();
  const idleTimers = new WeakMap<Socket, NodeJS.Timeout>();
  return (req, res) => {
    const socket = req.socket;
    clearTimeout(idleTimers.get(socket));
    traffic.requests++;
    if (req.headers.connection?.toLowerCase() === 'close') traffic.oneShot++;
    const earlier = served.get(socket) ?? 0;
    served.set(socket, earlier + 1);
    if (earlier > 0 && fault.left > 0) {
      fault.left--;
      traffic.faults++;
      spoil(fault.kind, req, res);
      return;
    }
    if (idleCloseMs !== undefined) {
      res.once('finish', () => idleTimers.set(socket, setTimeout(() => socket.destroy(), idleCloseMs).unref()));
    }
    responder(req, res);
  };
}

function spoil(kind: ReusedConnectionFault, req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  switch (kind) {
    case 'reset':
      socket.destroy();
      return;
    case 'partial-head':
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: appli', () => socket.destroy());
      return;
    case 'partial-body':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"statusCode":"00', () => socket.destroy());
  }
}
