// Which endpoints of an account listen to an event type, cached per account
// like API keys (keys/cache.ts), so the verify path reads the endpoint table
// only on a miss: an account with no endpoint costs a map lookup. Changes
// made in this process evict at once; those made elsewhere (another
// instance, the CLI) take effect within the TTL.
import type { Store } from '../ports/store.js';
import type { WebhookEventType } from './types.js';

interface Entry {
  endpoints: { id: string; events: readonly WebhookEventType[] }[];
  expiresAt: number;
}

export class WebhookSubscriptions {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** Ids of the account's live endpoints subscribed to `type`. */
  async endpointsFor(accountId: string, type: WebhookEventType, now = Date.now()): Promise<string[]> {
    let entry = this.entries.get(accountId);
    if (!entry || entry.expiresAt <= now) {
      const endpoints = (await this.store.listWebhookEndpoints(accountId)).map((e) => ({ id: e.id, events: e.events }));
      entry = { endpoints, expiresAt: now + this.ttlMs };
      if (this.ttlMs > 0) this.remember(accountId, entry);
    }
    return entry.endpoints.filter((e) => e.events.includes(type)).map((e) => e.id);
  }

  forget(accountId: string): void {
    this.entries.delete(accountId);
  }

  private remember(accountId: string, entry: Entry): void {
    this.entries.delete(accountId);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(accountId, entry);
  }
}
