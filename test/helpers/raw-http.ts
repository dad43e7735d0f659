// HTTP over a bare TCP socket, for requests no HTTP client would send:
// injected header lines, duplicated headers, thousands of headers, bytes
// trickled slowly. The answer is whatever the server wrote before closing.
import { connect } from 'node:net';

export interface RawAnswer {
  /** Null when the server wrote nothing parseable. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as latin1. */
  raw: string;
}

export interface RawOptions {
  /** Written one after the other, `gapMs` apart (slowloris). */
  chunks?: (string | Buffer)[];
  gapMs?: number;
  /** Give up waiting for the server to close after this long. */
  timeoutMs?: number;
}

export function rawRequest(baseUrl: string, request: string | Buffer, opts: RawOptions = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const chunks = opts.chunks ?? [request];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    const received: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(received).toString('latin1')));
    };
    const timer = setTimeout(() => {
      done = true;
      socket.destroy();
      reject(new Error(`server did not answer and close within ${opts.timeoutMs ?? 5_000} ms`));
    }, opts.timeoutMs ?? 5_000);
    socket.on('data', (d) => {
      received.push(d);
      // A complete answer is enough: some answers leave closing to us.
      const answer = parseAnswer(Buffer.concat(received).toString('latin1'));
      if (answer.status !== null && answer.headers['content-length'] !== undefined && Buffer.byteLength(answer.body, 'latin1') >= Number(answer.headers['content-length'])) finish();
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.on('connect', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (done || socket.destroyed) return;
        if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
  });
}

function parseAnswer(all: string): RawAnswer {
  // Interim answers (100 Continue) come before the real one.
  const raw = all.replace(/^(?:HTTP\/1\.[01] 1\d\d[^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
  const end = raw.indexOf('\r\n\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  if (end === -1 || !match) return { status: null, headers: {}, body: '', raw: all };
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers, body: raw.slice(end + 4), raw: all };
}

/** A request head + body with the given header lines (already joined or not). */
export function httpRequest(opts: { method?: string; path?: string; headers: string[]; body?: string | Buffer }): Buffer {
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : (opts.body ?? Buffer.alloc(0));
  const head = `${opts.method ?? 'POST'} ${opts.path ?? '/api/v1/verify'} HTTP/1.1\r\n${opts.headers.map((h) => `${h}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
