// Each account's receiver policy and active receivers on the verify path,
// cached like API keys (keys/cache.ts): a verification reads them from memory;
// the store is read once per account per ttlMs. Changes made in this process
// evict at once; those made elsewhere (another instance, the CLI) take effect
// within the TTL.
import type { Store } from '../ports/store.js';
import type { Receiver, ReceiverPolicy } from '../types.js';

export interface ReceiverSetup {
  policy: ReceiverPolicy;
  /** Active receivers only; empty when the policy is `off` (they are not read then). */
  receivers: Receiver[];
}

const OFF: ReceiverSetup = { policy: 'off', receivers: [] };

export class ReceiverDirectory {
  private readonly entries = new Map<string, { setup: ReceiverSetup; expiresAt: number }>();

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async forAccount(accountId: string, now = Date.now()): Promise<ReceiverSetup> {
    const entry = this.entries.get(accountId);
    if (entry && entry.expiresAt > now) return entry.setup;
    const setup = await this.load(accountId);
    if (this.ttlMs > 0) {
      this.entries.delete(accountId);
      if (this.entries.size >= this.maxEntries) {
        // Maps iterate in insertion order: drop the oldest entry.
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(accountId, { setup, expiresAt: now + this.ttlMs });
    }
    return setup;
  }

  /** Called when the account's receivers or policy change in this process. */
  forgetAccount(accountId: string): void {
    this.entries.delete(accountId);
  }

  private async load(accountId: string): Promise<ReceiverSetup> {
    const account = await this.store.getAccount(accountId);
    // A deleted or unknown account is refused by the hold, not here.
    if (!account || account.receiverPolicy === 'off') return OFF;
    const receivers = (await this.store.listReceivers(accountId)).filter((r) => r.active);
    return { policy: account.receiverPolicy, receivers };
  }
}
