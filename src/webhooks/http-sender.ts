// POSTs webhook events with got: no retries (the worker schedules them), no
// redirects (a redirect is a failed attempt: following it would send a
// signed payment event wherever the endpoint points), one deadline for the
// whole exchange. The answer is the status line and headers; the attempt is
// settled as soon as they arrive.
//
// Connections are kept alive and reused: opening a TCP (and TLS) connection
// per event was most of a delivery's CPU. Node's agents pool sockets by
// host:port (and TLS options), so a socket only ever carries requests to the
// endpoint host and port it was opened for, and it was checked by the
// self-guard's lookup when it connected. For a socket to be reused, the
// response body must be read to its end: a small one is read and dropped; one
// past RESPONSE_BODY_CAP (or announced as such) has its connection destroyed
// instead, so an endpoint answering with a huge body still costs nothing.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { got, type RequestError } from 'got';
import type { WebhookAnswer, WebhookPost, WebhookSender } from '../domain/ports/webhook-sender.js';
import { guardedLookup, literalIsAdminListener, SelfRequestError } from './self-guard.js';

/** A body longer than this is not worth reading to keep a connection: the connection is closed. */
export const RESPONSE_BODY_CAP = 16 * 1024;

/**
 * How long an idle pooled connection is kept. Under Node's default
 * keepAliveTimeout (5 s) and most servers' idle limits, so the endpoint does
 * not close it just as it is reused; a `Keep-Alive: timeout=N` answer
 * shortens it further (Node honours the hint).
 */
const IDLE_SOCKET_MS = 4_000;

const client = got.extend({ retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false, decompress: false });

/** `adminPort`: the admin listener's port, never connected to (self-guard.ts); null: no guard (tests of the sender alone). */
export function httpWebhookSender(userAgent: string, adminPort: number | null): WebhookSender {
  // One pool per sender: its lookups all guard the same admin port.
  const agent = { http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }), https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) };
  return {
    post(request: WebhookPost): Promise<WebhookAnswer> {
      const url = new URL(request.url);
      if (adminPort !== null && literalIsAdminListener(url, adminPort)) return Promise.resolve({ statusCode: null, error: new SelfRequestError().message });
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      return new Promise((resolve) => {
        const stream = client.stream.post(url, {
          agent,
          body: request.body,
          headers: { 'content-type': 'application/json', 'user-agent': userAgent, ...request.headers },
          timeout: { request: request.timeoutMs },
          ...(adminPort !== null ? { dnsLookup: guardedLookup(port, adminPort) as never } : {}),
        });
        let bodyBytes = 0;
        stream.once('response', (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
          const retryAfter = response.headers['retry-after'];
          resolve({ statusCode: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
          if (Number(response.headers['content-length'] ?? 0) > RESPONSE_BODY_CAP) stream.destroy();
        });
        stream.on('data', (chunk: Buffer) => {
          bodyBytes += chunk.length;
          if (bodyBytes > RESPONSE_BODY_CAP) stream.destroy();
        });
        // `on`, not `once`: a body cut short after the answer (the deadline) errors again, and is ignored.
        stream.on('error', (err: RequestError) => resolve({ statusCode: null, error: describe(err) }));
      });
    },
  };
}

function describe(err: RequestError): string {
  if (err.cause instanceof SelfRequestError || err.code === 'ESELF') return new SelfRequestError().message;
  if (err.name === 'TimeoutError') return 'timed out: no answer within the delivery timeout';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
