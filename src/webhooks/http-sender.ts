// POSTs webhook events with got: no retries (the worker schedules them), no
// redirects (a redirect is a failed attempt: following it would send a
// signed payment event wherever the endpoint points), one deadline for the
// whole exchange. Only the status line and headers are read; the body is
// dropped unread, so an endpoint answering with a huge body costs nothing.
import { got, type RequestError } from 'got';
import type { WebhookAnswer, WebhookPost, WebhookSender } from '../domain/ports/webhook-sender.js';
import { guardedLookup, literalIsAdminListener, SelfRequestError } from './self-guard.js';

const client = got.extend({ retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false, decompress: false });

/** `adminPort`: the admin listener's port, never connected to (self-guard.ts); null: no guard (tests of the sender alone). */
export function httpWebhookSender(userAgent: string, adminPort: number | null): WebhookSender {
  return {
    post(request: WebhookPost): Promise<WebhookAnswer> {
      const url = new URL(request.url);
      if (adminPort !== null && literalIsAdminListener(url, adminPort)) return Promise.resolve({ statusCode: null, error: new SelfRequestError().message });
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      return new Promise((resolve) => {
        const stream = client.stream.post(url, {
          body: request.body,
          headers: { 'content-type': 'application/json', 'user-agent': userAgent, ...request.headers },
          timeout: { request: request.timeoutMs },
          ...(adminPort !== null ? { dnsLookup: guardedLookup(port, adminPort) as never } : {}),
        });
        stream.once('response', (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
          const retryAfter = response.headers['retry-after'];
          resolve({ statusCode: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
          stream.destroy();
        });
        stream.once('error', (err: RequestError) => resolve({ statusCode: null, error: describe(err) }));
        stream.resume();
      });
    },
  };
}

function describe(err: RequestError): string {
  if (err.cause instanceof SelfRequestError || err.code === 'ESELF') return new SelfRequestError().message;
  if (err.name === 'TimeoutError') return 'timed out: no answer within the delivery timeout';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
