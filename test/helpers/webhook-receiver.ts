// A real local HTTP server standing in for a merchant's webhook endpoint:
// it records every request as received (raw body, headers) and answers as
// the test says: a status, a Retry-After, a redirect, a body, slowly, or
// never. It counts the TCP connections it accepted and saw closed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** `body` is sent with a Content-Length, or without one (chunked) when `chunked`. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number; body?: string; chunked?: boolean } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** TCP connections accepted, and closed since. */
  connections: { opened: number; closed: number };
  /** How the next requests are answered (the default: 204). */
  answer: (req: Received, n: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = { url: '', received: [], connections: { opened: 0, closed: 0 }, answer, close: async () => {} };
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
      setTimeout(() => respond(res, a), a.delayMs ?? 0);
    });
  });
  server.on('connection', (socket) => {
    receiver.connections.opened += 1;
    socket.once('close', () => (receiver.connections.closed += 1));
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

function respond(res: ServerResponse, a: Exclude<Answer, 'hang'>): void {
  if (a.body === undefined) return void res.writeHead(a.status, a.headers).end();
  if (!a.chunked) return void res.writeHead(a.status, { ...a.headers, 'content-length': Buffer.byteLength(a.body) }).end(a.body);
  res.writeHead(a.status, a.headers);
  // A reader that stops reading leaves this write pending: the socket's close ends it.
  res.on('error', () => undefined);
  res.write(a.body);
  res.end();
}
