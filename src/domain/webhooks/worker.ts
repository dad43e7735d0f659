// The delivery worker: claims due deliveries (the store hands each to one
// worker while its lease lasts), signs and POSTs each, records the attempt,
// and schedules a retry (retry.ts) or gives up. It runs beside the verify
// path and never in it: a verification only writes its outbox rows. Every
// serving process runs one; the claim is what keeps two from sending the
// same attempt.
//
// A first attempt skips the claim: the settle writes its deliveries already
// leased to this worker (lease()) and hands them over once they are durable
// (dispatch()), so an event goes out as soon as its charge is on disk, not
// at the next claim (up to 20 ms later, a statement each time, and on
// PostgreSQL a round trip). What dispatch() cannot start at once waits in
// memory, boundedly (past the bound, settles write their deliveries
// unclaimed); what a process dies holding is claimed like any other
// delivery when its lease ends: later, never lost.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { WebhookAnswer, WebhookSender } from '../ports/webhook-sender.js';
import { afterAttempt, failureOf, type RetryPolicy } from './retry.js';
import { logFailedAttempt } from './attempt-log.js';
import type { SecretBox } from '../secret-box.js';
import { EndpointCache } from './endpoint-cache.js';
import { Waiter } from './waiter.js';
import type { DeliveryNext, NewWebhookDelivery, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './types.js';

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

/**
 * Deliveries leased to this worker and not yet attempted, at most (per batch
 * slot): past it lease() gives none, so a backlog (a slow endpoint, a burst)
 * is written unclaimed and claimed as slots free up, never held in memory.
 * Settles already under way when it filled may still bring theirs: up to
 * twice as many wait; past that they are claimed when their lease ends.
 */
const WAITING_PER_SLOT = 8;

export class WebhookWorker {
  private readonly now: () => Date;
  private running = false;
  private loop: Promise<void> | null = null;
  /** Until the next poll, a new event or a freed slot (a wake-up while not pausing skips the next pause). */
  private readonly pause = new Waiter();
  /** Attempts under way: at most `batch`, each freeing its slot when its answer is in. */
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Attempts answered whose record is being written. Not a slot: the record
   * may wait for a batch to join (SQLite), and the delivery stays leased
   * meanwhile, so nobody else claims it.
   */
  private readonly recording = new Set<Promise<void>>();
  private readonly minClaimIntervalMs: number;
  /** When the last claim started (performance.now()), for MIN_CLAIM_INTERVAL_MS. */
  private lastClaimAt = -Infinity;
  /**
   * The last claim filled every free slot, so more may be due: the next claim
   * waits for free slots rather than the interval (the backlog, not the
   * wake-ups, sets the pace then).
   */
  private behind = false;
  /** The wait between two claims (MIN_CLAIM_INTERVAL_MS): stop() does not wait it out. */
  private readonly gap = new Waiter();
  private readonly endpoints: EndpointCache;
  /** What this worker's leases claim deliveries under: one value per process run. */
  private readonly leaseClaim = randomUUID();
  /** Dispatched deliveries waiting for a free slot, oldest first. */
  private waiting: NewWebhookDelivery[] = [];

  constructor(private readonly o: WebhookWorkerOptions) {
    this.now = o.now ?? (() => new Date());
    this.minClaimIntervalMs = o.minClaimIntervalMs ?? MIN_CLAIM_INTERVAL_MS;
    this.endpoints = new EndpointCache(o.store, o.secrets);
  }

  /**
   * The lease a settle writes its deliveries under, for this worker to send
   * them itself; none while the worker is stopped, or where the store
   * cannot write one (they are then claimed as usual).
   */
  lease(): { claim: string; until: Date } | undefined {
    if (!this.running || !this.o.store.leasesOutbox || this.waiting.length >= this.o.batch * WAITING_PER_SLOT) return undefined;
    return { claim: this.leaseClaim, until: new Date(this.now().getTime() + this.o.leaseMs) };
  }

  /**
   * Deliveries a settle has just written, durably: those leased to this
   * worker are attempted at once (or as slots free up); any other is left
   * for a claim, which this wakes.
   */
  dispatch(deliveries: readonly NewWebhookDelivery[]): void {
    let unleased = false;
    for (const d of deliveries) {
      if (d.lease?.claim !== this.leaseClaim || !this.running) unleased = true;
      else if (this.waiting.length < 2 * this.o.batch * WAITING_PER_SLOT) this.waiting.push(d);
    }
    this.sendWaiting();
    if (unleased) this.wake();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the attempts under way (recorded), then stops; deliveries still waiting are claimed when their lease ends. */
  async stop(): Promise<void> {
    this.running = false;
    this.waiting = [];
    this.gap.wake(false);
    this.wake();
    await this.loop;
  }

  /** Something may be due now (an event was just written, a slot freed): skip the pause. */
  wake(): void {
    this.pause.wake(true);
  }

  /** Claims one batch and waits for every attempt, recorded; resolves to how many it attempted (tests drive the worker with it). */
  async deliverDue(): Promise<number> {
    const started = await this.claim(this.o.batch);
    await Promise.all(started);
    await Promise.allSettled([...this.recording]);
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
          await this.pause.wait(this.o.pollMs);
          continue;
        }
      } else {
        const sinceLastClaim = performance.now() - this.lastClaimAt;
        if (sinceLastClaim < this.minClaimIntervalMs) {
          await this.gap.wait(this.minClaimIntervalMs - sinceLastClaim);
          if (!this.running) break;
        }
      }
      const free = this.o.batch - this.inFlight.size;
      if (free > 0) {
        try {
          this.lastClaimAt = performance.now();
          const started = await this.claim(free);
          this.behind = started.length === free;
          for (const attempt of started) this.track(attempt);
        } catch (err) {
          this.behind = false;
          this.o.logger.warn({ err }, 'webhook delivery: claiming due deliveries failed; trying again shortly');
        }
      } else {
        // No slot to look with: the next freed one claims.
        this.behind = true;
      }
      // Until the next poll, a new event, or a freed slot.
      if (this.running) await this.pause.wait(this.o.pollMs);
    }
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
  }

  /** Claims up to `limit` due deliveries and starts their attempts (which never reject). */
  private async claim(limit: number): Promise<Promise<void>[]> {
    const claim = randomUUID();
    const due = await this.o.store.claimWebhookDeliveries({ claim, now: this.now(), leaseMs: this.o.leaseMs, limit });
    return due.map((d) => this.attempt(d, claim, this.endpoints.get(d.endpointId)));
  }

  /**
   * An attempt holds its slot until answered; a freed slot goes to a waiting
   * dispatch first, then to a claim when the last one left more due (else
   * the poll finds what comes due: a freed slot is no reason to claim).
   */
  private track(attempt: Promise<void>): void {
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      this.sendWaiting();
      if (this.behind) this.wake();
    });
  }

  /**
   * Starts waiting dispatched deliveries while slots are free. One whose
   * lease would end before its attempt could is dropped: a claim takes it
   * then, so two workers never send it at once.
   */
  private sendWaiting(): void {
    while (this.running && this.waiting.length > 0 && this.inFlight.size < this.o.batch) {
      const d = this.waiting.shift()!;
      const now = this.now();
      if (d.lease!.until.getTime() - now.getTime() <= this.o.timeoutMs) continue;
      const delivery: WebhookDelivery = { ...d, state: 'pending', nextAttemptAt: d.createdAt, attempts: [], deliveredAt: null };
      this.track(this.attempt(delivery, d.lease!.claim, this.endpoints.get(d.endpointId)));
    }
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
    // The recorded error is generic (viewers see it); the exact cause is for the operator.
    if (answer.statusCode === null && answer.detail) this.o.logger.debug?.({ deliveryId: d.id, endpointId: d.endpointId, detail: answer.detail }, 'webhook attempt: no answer');
    const next = afterAttempt(this.o.retry, d, attempt, answer, endpoint !== null && !endpoint.removedAt);
    this.o.onAttempt?.(next.state === 'pending' ? 'retry' : next.state);
    logFailedAttempt(this.o.logger, d, attempt, next);
    const recording = this.record(d, claim, attempt, next);
    this.recording.add(recording);
    void recording.finally(() => this.recording.delete(recording));
  }

  /** Never rejects: a record that fails leaves the delivery to be attempted again when its lease ends (at least once). */
  private async record(d: WebhookDelivery, claim: string, attempt: WebhookAttempt, next: DeliveryNext): Promise<void> {
    try {
      const recorded = await this.o.store.finishWebhookAttempt(d.id, claim, attempt, next);
      if (!recorded) this.o.logger.warn({ deliveryId: d.id }, 'webhook delivery: the claim ran out before the attempt was recorded; another worker has it');
    } catch (err) {
      this.o.logger.warn({ err, deliveryId: d.id }, 'webhook delivery: recording the attempt failed');
    }
  }

  private async send(d: WebhookDelivery, endpoint: WebhookEndpoint | null, at: Date): Promise<WebhookAnswer> {
    if (!endpoint || endpoint.removedAt) return { statusCode: null, error: 'the endpoint was removed' };
    let secret: string;
    try {
      secret = this.endpoints.secretOf(endpoint);
    } catch (err) {
      // Retried: an operator who forgot SECRETS_KEY can set it and restart.
      return { statusCode: null, error: `the signing secret cannot be opened: ${(err as Error).message}` };
    }
    const headers = { 'slipgate-event-id': d.eventId, 'slipgate-delivery-id': d.id };
    return this.o.sender.post({ url: endpoint.url, body: d.body, headers, signature: { secret, at }, timeoutMs: this.o.timeoutMs });
  }
}
