// A serving process's lease in the store, and crash recovery of credit holds.
// Every hold records the lease it was taken under; a process that dies stops
// renewing, and once its lease has missed LEASE_BEATS heartbeats any other
// process (or its replacement) settles or releases its holds at once.
// HOLD_STALE_MS stays as the backstop for holds no live lease covers.
import type { Logger } from 'pino';
import { newId } from '../domain/keys/api-key.js';
import type { RecoveryResult, Store } from '../domain/ports/store.js';

/** Heartbeats a lease may miss before it counts as dead. */
const LEASE_BEATS = 3;

export interface LeaseOptions {
  heartbeatMs: number;
  /** The age rule: holds older than this are recovered whatever their lease. */
  staleMs: number;
  logger: Logger;
  now?: () => Date;
  /** Told of every recovery pass that settled or released something (metrics). */
  onRecovered?: (result: RecoveryResult) => void;
}

export interface InstanceLease {
  /**
   * The id to record on a new hold, or null when the last renewal is older
   * than the TTL: the lease may have lapsed, so the hold is left to the age
   * rule rather than tagged with an id recovery may already treat as dead.
   */
  instanceId(): string | null;
  /** Stops the heartbeat and recovery, then deletes the lease record. */
  end(): Promise<void>;
}

/** Registers the lease, recovers what dead processes left, then beats every `heartbeatMs`. */
export async function startInstanceLease(store: Store, opts: LeaseOptions): Promise<InstanceLease> {
  const lease = new Lease(store, opts);
  await lease.register();
  await lease.recover();
  lease.startBeating();
  return lease;
}

class Lease implements InstanceLease {
  private id = '';
  /** performance.now() when the last successful start or renewal was sent. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private readonly ttlMs: number;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | null = null;
  private recovering: Promise<void> | null = null;
  private ended = false;

  constructor(
    private readonly store: Store,
    private readonly opts: LeaseOptions,
  ) {
    this.ttlMs = opts.heartbeatMs * LEASE_BEATS;
    this.now = opts.now ?? (() => new Date());
  }

  instanceId(): string | null {
    return performance.now() - this.renewedAt < this.ttlMs ? this.id : null;
  }

  async register(): Promise<void> {
    const id = newId('ins');
    const sent = performance.now();
    await this.store.startLease(id, this.ttlMs, this.now());
    this.id = id;
    this.renewedAt = sent;
    this.opts.logger.info({ instanceId: id, ttlMs: this.ttlMs }, 'lease started');
  }

  async recover(): Promise<void> {
    const now = this.now();
    const result = await this.store.recoverStaleHolds(new Date(now.getTime() - this.opts.staleMs), now);
    if (result.consumed + result.released === 0) return;
    this.opts.onRecovered?.(result);
    this.opts.logger.warn(result, 'recovered credit holds of dead processes');
  }

  startBeating(): void {
    this.timer = setInterval(() => this.tick(), this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** A beat still running (slow store) is not doubled; recovery follows each beat, one at a time. */
  private tick(): void {
    if (this.beating || this.ended) return;
    this.beating = this.beat()
      .catch((err: unknown) => this.opts.logger.error({ err }, 'lease renewal failed'))
      .finally(() => {
        this.beating = null;
        if (this.recovering || this.ended) return;
        this.recovering = this.recover()
          .catch((err: unknown) => this.opts.logger.error({ err }, 'hold recovery failed'))
          .finally(() => (this.recovering = null));
      });
  }

  private async beat(): Promise<void> {
    const id = this.id;
    const sent = performance.now();
    if (await this.store.renewLease(id, this.ttlMs, this.now())) {
      this.renewedAt = sent;
      return;
    }
    if (this.ended) return;
    // Paused (SIGSTOP, GC, frozen VM) or cut off from the store past the TTL:
    // others may have released this lease's holds already. Settles of those
    // fail (the hold is gone) and answer 500; new work goes under a new id.
    this.opts.logger.warn({ lostInstanceId: id }, 'lease expired while this process was alive; its holds count as abandoned; starting a new lease');
    await this.register();
  }

  async end(): Promise<void> {
    this.ended = true;
    clearInterval(this.timer);
    await this.beating;
    await this.recovering;
    await this.store.endLease(this.id);
    this.opts.logger.info({ instanceId: this.id }, 'lease ended');
  }
}
