// POSTs webhook events: no retries (the worker schedules them), no redirects
// (a redirect is a failed attempt: following it would send a signed payment
// event wherever the endpoint points), one deadline for the whole exchange,
// body included. The answer is the status line and headers; the attempt is
// settled as soon as they arrive.
//
// Node's own http/https.request, not got: the bank calls keep got (the design
// card), but this is an internal POST loop, one request per event, and got's
// per-request machinery (options normalisation, its stream wrapper, its
// timers) was the largest share of a delivery's CPU. What got gave here is
// done below: the deadline (one timer), the body cap, and the error texts.
//
// Connections are kept alive and reused: opening a TCP (and TLS) connection
// per event was most of a delivery's CPU. Node's agents pool sockets by
// host:port (and TLS options), so a socket only ever carries requests to the
// endpoint host and port it was opened for, and it was checked by the
// self-guard's lookup when it connected. For a socket to be reused, the
// response body must be read to its end: a small one is read and dropped; one
// past RESPONSE_BODY_CAP (or announced as such) has its connection destroyed
// instead, so an endpoint answering with a huge body still costs nothing.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { WebhookAnswer, WebhookPost, WebhookSender } from '../domain/ports/webhook-sender.js';
import { SIGNATURE_HEADER, signatureHeader } from '../domain/webhooks/signature.js';
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

class DeadlineError extends Error {
  override name = 'TimeoutError';
  constructor() {
    super('timed out: no answer within the delivery timeout');
  }
}

/** `adminPort`: the admin listener's port, never connected to (self-guard.ts); null: no guard (tests of the sender alone). */
export function httpWebhookSender(userAgent: string, adminPort: number | null): WebhookSender {
  // One pool per sender: its lookups all guard the same admin port.
  const agents = { http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }), https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) };
  return {
    post(request: WebhookPost): Promise<WebhookAnswer> {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (err) {
        return Promise.resolve({ statusCode: null, error: describe(err) });
      }
      if (adminPort !== null && literalIsAdminListener(url, adminPort)) return Promise.resolve({ statusCode: null, error: new SelfRequestError().message });
      const https = url.protocol === 'https:';
      if (!https && url.protocol !== 'http:') return Promise.resolve({ statusCode: null, error: `unsupported protocol ${url.protocol}` });
      const port = Number(url.port || (https ? 443 : 80));
      const body = Buffer.from(request.body, 'utf8');
      return new Promise((resolve) => {
        let settled = false;
        const settle = (answer: WebhookAnswer) => {
          if (settled) return;
          settled = true;
          resolve(answer);
        };
        const options = {
          method: 'POST',
          agent: https ? agents.https : agents.http,
          headers: { 'content-type': 'application/json', 'content-length': body.length, 'user-agent': userAgent, ...request.headers, ...signed(request) },
          ...(adminPort !== null ? { lookup: guardedLookup(port, adminPort) as never } : {}),
        };
        const req: ClientRequest = (https ? httpsRequest : httpRequest)(url, options, (response) => {
          const retryAfter = response.headers['retry-after'];
          // A response to a client request always has a status code.
          settle({ statusCode: response.statusCode!, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
          drain(req, response);
        });
        // The whole exchange, body included: a slow body is cut at the deadline too.
        const deadline = setTimeout(() => req.destroy(new DeadlineError()), request.timeoutMs);
        req.once('close', () => clearTimeout(deadline));
        // `on`, not `once`: a body cut short after the answer (the deadline, the cap) errors again, and is ignored.
        req.on('error', (err) => settle({ statusCode: null, error: describe(err) }));
        req.end(body);
      });
    },
  };
}

function signed({ signature, body }: WebhookPost): Record<string, string> {
  return signature ? { [SIGNATURE_HEADER]: signatureHeader(signature.secret, body, signature.at) } : {};
}

/** Reads a small body to its end so the socket goes back to the pool; past the cap, the connection is closed unread. */
function drain(req: ClientRequest, response: IncomingMessage): void {
  // A body cut short (the cap, the deadline) errors here too, after the answer was settled.
  response.on('error', () => {});
  if (Number(response.headers['content-length'] ?? 0) > RESPONSE_BODY_CAP) {
    req.destroy();
    return;
  }
  let bodyBytes = 0;
  response.on('data', (chunk: Buffer) => {
    bodyBytes += chunk.length;
    if (bodyBytes > RESPONSE_BODY_CAP) req.destroy();
  });
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof SelfRequestError || e.code === 'ESELF') return new SelfRequestError().message;
  if (e instanceof DeadlineError) return e.message;
  return e.code ? `${e.code}: ${e.message}` : e.message;
}
