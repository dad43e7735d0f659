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
// target guard's lookup when it connected (self-guard.ts). For a socket to
// be reused, the response body must be read to its end: a small one is read
// and dropped; one past RESPONSE_BODY_CAP (or announced as such) has its
// connection destroyed instead, so an endpoint answering with a huge body
// still costs nothing.
//
// What an attempt records is seen by dashboard viewers: a connection refused,
// reset or timed out all read as one text (NO_ANSWER), or an endpoint URL
// would probe which ports answer on the networks slipgate can reach. The
// exact cause goes back as `detail`, for the operator's log at debug.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { WebhookAnswer, WebhookPost, WebhookSender } from '../domain/ports/webhook-sender.js';
import { SIGNATURE_HEADER, signatureHeader } from '../domain/webhooks/signature.js';
import { guardedLookup, literalRefusal, TargetRefusedError, type Resolve, type TargetGuard } from './self-guard.js';

/** A body longer than this is not worth reading to keep a connection: the connection is closed. */
export const RESPONSE_BODY_CAP = 16 * 1024;

/**
 * How long an idle pooled connection is kept. Under Node's default
 * keepAliveTimeout (5 s) and most servers' idle limits, so the endpoint does
 * not close it just as it is reused; a `Keep-Alive: timeout=N` answer
 * shortens it further (Node honours the hint).
 */
const IDLE_SOCKET_MS = 4_000;

/** What every failure to get an answer records, whatever its cause (the cause is in `detail`). */
export const NO_ANSWER = 'no answer: the connection failed, was closed or timed out';

class DeadlineError extends Error {
  override name = 'TimeoutError';
  constructor() {
    super('timed out: no answer within the delivery timeout');
  }
}

/**
 * `guard`: what is never connected to (self-guard.ts): the admin listener,
 * link-local and metadata addresses, private ones unless allowed.
 * `resolveName`: how names are looked up (dns.lookup; tests give names of their own).
 */
export function httpWebhookSender(userAgent: string, guard: TargetGuard, resolveName?: Resolve): WebhookSender {
  // One pool per sender: its lookups all apply the same guard.
  const agents = { http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }), https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) };
  return {
    post(request: WebhookPost): Promise<WebhookAnswer> {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (err) {
        return Promise.resolve({ statusCode: null, error: `not a valid URL: ${(err as Error).message}` });
      }
      const https = url.protocol === 'https:';
      if (!https && url.protocol !== 'http:') return Promise.resolve({ statusCode: null, error: `unsupported protocol ${url.protocol}` });
      const refused = literalRefusal(url, guard);
      if (refused) return Promise.resolve({ statusCode: null, error: refused });
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
          lookup: guardedLookup(port, guard, resolveName) as never,
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
        req.on('error', (err) => settle(failed(err)));
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

/** A refusal by the guard as it is (it names the rule, not the port); anything else as NO_ANSWER, its cause in `detail`. */
function failed(err: unknown): WebhookAnswer {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof TargetRefusedError) return { statusCode: null, error: e.message };
  return { statusCode: null, error: NO_ANSWER, detail: e.code ? `${e.code}: ${e.message}` : e.message };
}
