// Storage port: admin tokens and the admin event log.
import type { AdminEvent, AdminToken } from '../types.js';
import type { Page } from './store-page.js';

export interface AdminStore {
  createAdminToken(token: AdminToken): Promise<void>;
  findAdminTokenByHash(hash: string): Promise<AdminToken | null>;
  listAdminTokens(): Promise<AdminToken[]>;
  revokeAdminToken(id: string, at: Date): Promise<boolean>;
  /** An id stored before is left as it is: retried actions record their event once. */
  insertAdminEvent(event: AdminEvent): Promise<void>;
  /** Newest first; `targetId` narrows to one account/key/token. */
  listAdminEvents(query: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>>;
}
