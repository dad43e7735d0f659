// A real local HTTP server standing in for a merchant's webhook endpoint:
// it records every request as received (raw body, headers) and answers as
// the test says: a status, a Retry-After, a redirect, slowly, or never.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered (the default: 204). */
  answer: (req: Received, n: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = { url: '', received: [], answer, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(got);
      const a = receiver.answer(got, receiver.received.length);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      setTimeout(() => res.writeHead(a.status, a.headers).end(), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
