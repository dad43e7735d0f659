// Storage port: accounts and their API keys.
import type { Account, ApiKey } from '../types.js';
import type { Page } from './store-page.js';
import type { NewWebhookDelivery } from '../webhooks/types.js';

export interface AccountQuery {
  search?: string;
  /** Reconciliation needs deleted accounts too; lists for people do not. */
  includeDeleted?: boolean;
  limit: number;
  after?: string | null;
}

export interface AccountStore {
  createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account>;
  /** Returns deleted accounts too (deletedAt set). */
  getAccount(id: string): Promise<Account | null>;
  getAccounts(ids: readonly string[]): Promise<Account[]>;
  listAccounts(query: AccountQuery): Promise<Page<Account>>;
  /** Soft delete: keys stop working (1022), audit history stays. */
  deleteAccount(id: string, at: Date): Promise<boolean>;
  /** The name shown to staff and on the checkout page; false for an unknown or deleted account. */
  renameAccount(id: string, name: string): Promise<boolean>;

  createApiKey(key: ApiKey): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKey | null>;
  getApiKey(id: string): Promise<ApiKey | null>;
  listApiKeys(accountId: string): Promise<ApiKey[]>;
  revokeApiKey(id: string, at: Date): Promise<boolean>;
  /** Replaces the key's allowed CIDR ranges (empty = any address); false for an unknown key. */
  setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean>;
  touchApiKey(id: string, at: Date): Promise<void>;

  /** The account's account.credits_low threshold (domain/credits-low.ts); null: off, or no such account. */
  creditsLowAt(accountId: string): Promise<number | null>;
  /** Sets the threshold (null: off) and re-arms the event; false for an unknown or deleted account. */
  setCreditsLowAt(accountId: string, threshold: number | null): Promise<boolean>;
  /**
   * The credits_low state, settled in one write: credits below the threshold
   * and not announced yet → marked announced, with the deliveries
   * `announce` builds written in the same write (`fell`); at or above it
   * and announced → re-armed (`rearmed`); otherwise nothing (`none`).
   * MongoDB writes the deliveries just after the mark: a crash between
   * loses that one event (at most once there).
   */
  settleCreditsLow(accountId: string, announce: (credits: number, threshold: number) => readonly NewWebhookDelivery[]): Promise<'fell' | 'rearmed' | 'none'>;
}
