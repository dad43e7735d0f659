// A simulated KBank on loopback whose verify answers wait until the test
// releases them, so a verification stays in flight (its credit held) for
// exactly as long as a test needs, without sleeping or timing guesses.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KBANK_VERIFY_PATH } from '../../src/upstream/kbank/kbank-protocol.js';
import { closeServer, createBankResponder, listen } from '../../src/upstream/simulator/simulated-bank.js';
import { SimulatedBankState } from '../../src/upstream/simulator/bank-state.js';
import { FAKE_KBANK_CREDENTIALS } from './kbank-server.js';

export interface GatedKbank {
  /** A UPSTREAMS entry pointing at this bank. */
  config(name?: string): Record<string, unknown>;
  /** Verify calls received and not yet answered. */
  waiting(): number;
  /** Answers the oldest waiting verify call. */
  releaseOne(): void;
  /** Answers every waiting call, and every later one at once. */
  open(): void;
  close(): Promise<void>;
}

export async function startGatedKbank(): Promise<GatedKbank> {
  const respond = createBankResponder('kbank', new SimulatedBankState(FAKE_KBANK_CREDENTIALS));
  const queue: (() => void)[] = [];
  let opened = false;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://bank').pathname;
    // Token calls pass; the unread request body waits in the socket's buffer.
    if (opened || path !== KBANK_VERIFY_PATH) return respond(req, res);
    queue.push(() => respond(req, res));
  });
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    config: (name = 'kbank-gated') => ({
      name,
      provider: 'kbank',
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: FAKE_KBANK_CREDENTIALS.id,
      clientSecret: FAKE_KBANK_CREDENTIALS.secret,
    }),
    waiting: () => queue.length,
    releaseOne: () => queue.shift()?.(),
    open() {
      opened = true;
      for (const answer of queue.splice(0)) answer();
    },
    close: () => closeServer(server),
  };
}
