// The delivery worker: claims due deliveries (the store hands each to one
// worker while its lease lasts), signs and POSTs each, records the attempt,
// and schedules a retry (retry.ts) or gives up. It runs beside the verify
// path and never in it: a verification only writes its outbox rows. Every
// serving process runs one; the claim is what keeps two from sending the
// same attempt.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { WebhookAnswer, WebhookSender } from '../ports/webhook-sender.js';
import { nextAttemptAt, parseRetryAfter, type RetryPolicy } from './retry.js';
import type { SecretBox } from '../secret-box.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import type { DeliveryNext, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './types.js';

export interface WebhookWorkerOptions {
  store: Store;
  sender: WebhookSender;
  secrets: SecretBox;
  retry: RetryPolicy;
  /** One attempt's whole budget. */
  timeoutMs: number;
  /** How long a claim holds a delivery; longer than timeoutMs, so a live attempt keeps it. */
  leaseMs: number;
  /** Pause when nothing is due. */
  pollMs: number;
  /** Deliveries claimed, and sent in parallel, at a time. */
  batch: number;
  /**
   * The shortest time between two claims when woken (default
   * MIN_CLAIM_INTERVAL_MS): events written meanwhile are claimed together.
   */
  minClaimIntervalMs?: number;
  logger: Logger;
  now?: () => Date;
  /** Told what followed each attempt (metrics). */
  onAttempt?: (result: 'delivered' | 'retry' | 'failed') => void;
}

/**
 * Every verification wakes the worker; at 1,000 a second, claiming on each
 * wake-up was a claim write per event. Waiting this long after the last
 * claim lets one claim take everything written meanwhile, and an event
 * written after a quiet spell is claimed at once: none waits longer than this
 * for its claim.
 */
const MIN_CLAIM_INTERVAL_MS = 20;

/** Opened signing secrets kept at most; past it the cache starts afresh (a bound, not an eviction policy). */
const OPENED_SECRETS_MAX = 1_000;

export class WebhookWorker {
  private readonly now: () => Date;
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** A wake-up that came while the loop was not pausing: the next pause is skipped. */
  private woken = false;
  /** Attempts under way: at most `batch`, each freeing its slot when recorded. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly minClaimIntervalMs: number;
  /** When the last claim started (performance.now()), for MIN_CLAIM_INTERVAL_MS. */
  private lastClaimAt = -Infinity;
  /**
   * The last claim filled every free slot, so more may be due: the next claim
   * waits for free slots rather than the interval (the backlog, not the
   * wake-ups, sets the pace then).
   */
  private behind = false;
  /** Ends the wait between two claims early: stop() does not wait it out. */
  private endInterval: (() => void) | null = null;
  /**
   * Secrets opened (AES-GCM) by endpoint id and sealed value: the same
   * endpoint signs every event with one secret, and opening it per claim
   * batch was work repeated. A replaced seal is a new key. Never logged.
   */
  private readonly openedSecrets = new Map<string, string>();

  constructor(private readonly o: WebhookWorkerOptions) {
    this.now = o.now ?? (() => new Date());
    this.minClaimIntervalMs = o.minClaimIntervalMs ?? MIN_CLAIM_INTERVAL_MS;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the attempts under way (recorded), then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.endInterval?.();
    this.wake();
    await this.loop;
  }

  /** Something may be due now (an event was just written, a slot freed): skip the pause. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** Claims one batch and waits for every attempt; resolves to how many it attempted (tests drive the worker with it). */
  async deliverDue(): Promise<number> {
    const started = await this.claim(this.o.batch);
    await Promise.all(started);
    return started.length;
  }

  /**
   * Keeps up to `batch` attempts going: a slow or silent endpoint holds its
   * own slot for at most the timeout, never the others' deliveries.
   */
  private async run(): Promise<void> {
    while (this.running) {
      if (this.behind) {
        // More is due than the slots took: claim as soon as a quarter of them is free, a batch each time.
        if (this.o.batch - this.inFlight.size < Math.ceil(this.o.batch / 4)) {
          await this.pause();
          continue;
        }
      } else {
        const sinceLastClaim = performance.now() - this.lastClaimAt;
        if (sinceLastClaim < this.minClaimIntervalMs) {
          await this.interval(this.minClaimIntervalMs - sinceLastClaim);
          if (!this.running) break;
        }
      }
      const free = this.o.batch - this.inFlight.size;
      if (free > 0) {
        try {
          this.lastClaimAt = performance.now();
          const started = await this.claim(free);
          this.behind = started.length === free;
          for (const attempt of started) {
            this.inFlight.add(attempt);
            void attempt.finally(() => {
              this.inFlight.delete(attempt);
              this.wake();
            });
          }
        } catch (err) {
          this.behind = false;
          this.o.logger.warn({ err }, 'webhook delivery: claiming due deliveries failed; trying again shortly');
        }
      }
      // Until the next poll, a new event, or a freed slot.
      if (this.running) await this.pause();
    }
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims up to `limit` due deliveries and starts their attempts (which never reject). */
  private async claim(limit: number): Promise<Promise<void>[]> {
    const claim = randomUUID();
    const due = await this.o.store.claimWebhookDeliveries({ claim, now: this.now(), leaseMs: this.o.leaseMs, limit });
    const endpoints = new Map<string, Promise<WebhookEndpoint | null>>();
    const endpoint = (id: string) => {
      let found = endpoints.get(id);
      if (!found) endpoints.set(id, (found = this.o.store.getWebhookEndpoint(id)));
      return found;
    };
    return due.map((d) => this.attempt(d, claim, endpoint(d.endpointId)));
  }

  private interval(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.endInterval = null;
        resolve();
      }
      this.endInterval = done;
    });
  }

  private pause(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.o.pollMs);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = null;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async attempt(d: WebhookDelivery, claim: string, found: Promise<WebhookEndpoint | null>): Promise<void> {
    let endpoint: WebhookEndpoint | null;
    try {
      endpoint = await found;
    } catch (err) {
      // Nothing sent: the claim runs out and the delivery is attempted again.
      this.o.logger.warn({ err, deliveryId: d.id }, 'webhook delivery: reading the endpoint failed');
      return;
    }
    const at = this.now();
    const started = performance.now();
    const answer = await this.send(d, endpoint, at).catch((err: unknown): WebhookAnswer => ({ statusCode: null, error: `not sent: ${(err as Error).message}` }));
    const attempt: WebhookAttempt = { at, statusCode: answer.statusCode, error: failureOf(answer), durationMs: Math.round(performance.now() - started) };
    const next = this.next(d, attempt, answer, endpoint);
    this.o.onAttempt?.(next.state === 'pending' ? 'retry' : next.state);
    if (next.state === 'failed') {
      this.o.logger.warn(
        { deliveryId: d.id, eventId: d.eventId, endpointId: d.endpointId, accountId: d.accountId, attempts: d.attempts.length + 1, error: attempt.error },
        'webhook delivery failed for good (retry window over, or the endpoint was removed); redeliver it by hand once the endpoint works',
      );
    }
    try {
      const recorded = await this.o.store.finishWebhookAttempt(d.id, claim, attempt, next);
      if (!recorded) this.o.logger.warn({ deliveryId: d.id }, 'webhook delivery: the claim ran out before the attempt was recorded; another worker has it');
    } catch (err) {
      // The lease runs out and the delivery is attempted again: at least once.
      this.o.logger.warn({ err, deliveryId: d.id }, 'webhook delivery: recording the attempt failed');
    }
  }

  private async send(d: WebhookDelivery, endpoint: WebhookEndpoint | null, at: Date): Promise<WebhookAnswer> {
    if (!endpoint || endpoint.removedAt) return { statusCode: null, error: 'the endpoint was removed' };
    let secret: string;
    try {
      secret = this.secretOf(endpoint);
    } catch (err) {
      // Retried: an operator who forgot SECRETS_KEY can set it and restart.
      return { statusCode: null, error: `the signing secret cannot be opened: ${(err as Error).message}` };
    }
    const headers = { [SIGNATURE_HEADER]: signatureHeader(secret, d.body, at), 'slipgate-event-id': d.eventId, 'slipgate-delivery-id': d.id };
    return this.o.sender.post({ url: endpoint.url, body: d.body, headers, timeoutMs: this.o.timeoutMs });
  }

  private secretOf(endpoint: WebhookEndpoint): string {
    const key = `${endpoint.id}\n${endpoint.sealedSecret}`;
    let secret = this.openedSecrets.get(key);
    if (secret === undefined) {
      secret = this.o.secrets.open(endpoint.sealedSecret);
      if (this.openedSecrets.size >= OPENED_SECRETS_MAX) this.openedSecrets.clear();
      this.openedSecrets.set(key, secret);
    }
    return secret;
  }

  private next(d: WebhookDelivery, attempt: WebhookAttempt, answer: WebhookAnswer, endpoint: WebhookEndpoint | null): DeliveryNext {
    if (attempt.error === null) return { state: 'delivered' };
    if (!endpoint || endpoint.removedAt) return { state: 'failed' };
    const retryAfterMs = answer.statusCode === null ? null : parseRetryAfter(answer.retryAfter, attempt.at);
    const failures = d.attempts.length + 1;
    const retryAt = nextAttemptAt(this.o.retry, { createdAt: d.createdAt, now: attempt.at, failures, retryAfterMs });
    return retryAt ? { state: 'pending', nextAttemptAt: retryAt } : { state: 'failed' };
  }
}

/** Null for a 2xx: every other answer, redirects included, is a failed attempt. */
function failureOf(answer: WebhookAnswer): string | null {
  if (answer.statusCode === null) return answer.error;
  if (answer.statusCode >= 200 && answer.statusCode < 300) return null;
  if (answer.statusCode >= 300 && answer.statusCode < 400) return `HTTP ${answer.statusCode}: redirects are not followed`;
  return `HTTP ${answer.statusCode}`;
}
