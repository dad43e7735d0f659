// How the delivery worker reaches an endpoint (src/webhooks/http-sender.ts,
// which the server runs in a thread of its own: sender-thread.ts). The domain
// decides what an answer means; the adapter only reports it.
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /**
   * Signed by the sender (domain/webhooks/signature.ts) as it sends: the
   * HMAC is per event, and computing it on the sending thread keeps it off
   * the answering loop. The secret stays in this process; never logged.
   */
  signature?: { secret: string; at: Date };
  timeoutMs: number;
}

/**
 * The endpoint's status (any, redirects included) or why none came: `error`
 * is recorded on the attempt (viewers see it), `detail` is the exact cause
 * for the operator's log only (a refused, reset or timed-out connection
 * read the same in `error`, so endpoints cannot be used to probe ports).
 */
export type WebhookAnswer = { statusCode: number; retryAfter: string | undefined } | { statusCode: null; error: string; detail?: string };

export interface WebhookSender {
  /** Never rejects: a transport failure is an answer without a status. */
  post(request: WebhookPost): Promise<WebhookAnswer>;
}
