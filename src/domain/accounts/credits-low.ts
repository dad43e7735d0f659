// account.credits_low (docs/webhooks.md#credits-low): an account whose
// credits fall below its threshold (`creditsLowAt`, off by default) is
// announced once, through the same outbox as every event; a top-up or an
// adjustment back to the threshold or above re-arms it, and the next fall is
// announced again. The announce-once flag is the store's, flipped in the
// event's own write (settleCreditsLow).
//
// The verify path pays a map lookup: a hold takes exactly one credit and
// reports the balance it left, so of the holds of one fall exactly one sees
// `threshold - 1`, and only that one writes. A balance that jumps below the
// threshold (an adjustment, a threshold set above it) is settled by the
// admin change itself (AdminActions).
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { outboxRecords } from '../webhooks/events.js';
import { newId } from '../keys/api-key.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';

/** What a fall says: the account, its credits then, the threshold. */
export interface CreditsLow {
  accountId: string;
  credits: number;
  threshold: number;
}

export interface CreditsLowDeps {
  store: Store;
  /** How long a threshold read is kept per account (API_KEY_CACHE_TTL_MS); 0: read every time. */
  ttlMs: number;
  /** The endpoints of an account listening to `account.credits_low`. */
  endpointsFor(accountId: string): Promise<readonly string[]>;
  logger?: Logger;
  now?: () => Date;
}

/** Accounts whose threshold is kept in memory at once. */
const MAX_ENTRIES = 10_000;

export class CreditsLowWatch {
  private readonly thresholds = new Map<string, { threshold: number | null; expiresAt: number }>();
  /** Told once per announced fall, after its write: the LINE staff message (domain/line/credits-low-note.ts). */
  private readonly listeners: ((fall: CreditsLow) => void)[] = [];

  constructor(private readonly deps: CreditsLowDeps) {}

  /**
   * After a hold left `creditsLeft`: a store write only at the hold that
   * crossed. Never rejects: a failure is logged, and the slip's answer is
   * not the worse for it.
   */
  async afterHold(accountId: string, creditsLeft: number): Promise<void> {
    try {
      const threshold = await this.thresholdOf(accountId);
      if (threshold !== null && creditsLeft === threshold - 1) await this.settle(accountId);
    } catch (err) {
      this.deps.logger?.warn({ err, accountId }, 'account.credits_low not settled after a hold');
    }
  }

  /** After an admin change of the balance, which is made by then: a failure here is logged, not the change's. */
  async afterChange(accountId: string): Promise<void> {
    try {
      await this.settle(accountId);
    } catch (err) {
      this.deps.logger?.warn({ err, accountId }, 'account.credits_low not settled after a balance change');
    }
  }

  /** After any other change of the balance or the threshold: announces a fall, re-arms after a rise. */
  async settle(accountId: string): Promise<'fell' | 'rearmed' | 'none'> {
    const endpoints = await this.deps.endpointsFor(accountId);
    let fall: CreditsLow | undefined;
    // Written unclaimed: the webhook worker's next poll sends them.
    const result = await this.deps.store.settleCreditsLow(accountId, (credits, threshold): NewWebhookDelivery[] => {
      fall = { accountId, credits, threshold };
      return endpoints.length === 0 ? [] : outboxRecords(creditsLowEvent(fall, (this.deps.now ?? (() => new Date()))()), accountId, endpoints);
    });
    if (result === 'fell' && fall) for (const listener of this.listeners) listener(fall);
    return result;
  }

  /** Adds a listener told of each fall this process announces (the server's wiring adds LINE's staff message). */
  onFall(listener: (fall: CreditsLow) => void): void {
    this.listeners.push(listener);
  }

  /** A threshold changed in this process takes effect at once; elsewhere within the TTL. */
  forget(accountId: string): void {
    this.thresholds.delete(accountId);
  }

  private async thresholdOf(accountId: string): Promise<number | null> {
    const now = Date.now();
    const cached = this.thresholds.get(accountId);
    if (cached && cached.expiresAt > now) return cached.threshold;
    const threshold = await this.deps.store.creditsLowAt(accountId);
    if (this.deps.ttlMs > 0) {
      // Maps iterate in insertion order: past the bound, the oldest entry goes.
      if (this.thresholds.size >= MAX_ENTRIES) this.thresholds.delete(this.thresholds.keys().next().value!);
      this.thresholds.set(accountId, { threshold, expiresAt: now + this.deps.ttlMs });
    }
    return threshold;
  }
}

/** The event: no personal data, only the account and its numbers. */
export function creditsLowEvent(fall: CreditsLow, at: Date) {
  return { id: newId('evt'), type: 'account.credits_low' as const, createdAt: at, data: { accountId: fall.accountId, credits: fall.credits, creditsLowAt: fall.threshold } };
}
