// Requests Node's HTTP layer answers by itself, before express sees them
// (malformed or injected header lines, oversized headers, clients too slow
// for the header/request timeouts, an unknown Expect, CONNECT), get the same
// JSON error shape as every other answer instead of a bare status line or a
// silently closed socket.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const ANSWERS: Record<string, readonly [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request was not received in time'],
};
const BAD_REQUEST = [400, 'Bad Request', 'malformed HTTP request'] as const;
/** A client that does not read our answer must not keep the socket. */
const LINGER_MS = 2_000;

export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Like Node's own handler: answer only when no response has started on
    // this socket, or the caller would read two answers spliced together.
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, message] = ANSWERS[err.code ?? ''] ?? BAD_REQUEST;
    answerAndClose(socket, status, reason, message);
  });
  // Without a listener Node closes a CONNECT request's socket unanswered.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    answerAndClose(socket, 405, 'Method Not Allowed', 'method not allowed');
  });
  // Without a listener Node answers 417 with an empty body.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ status: 'error', message: 'unsupported Expect header' });
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
}

function answerAndClose(socket: Duplex, status: number, reason: string, message: string): void {
  const body = JSON.stringify({ status: 'error', message });
  const head = [`HTTP/1.1 ${status} ${reason}`, 'content-type: application/json; charset=utf-8', `content-length: ${Buffer.byteLength(body)}`, 'connection: close'];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
