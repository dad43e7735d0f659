// Who is asking and what resolvers may use. The bearer token is checked by
// express before GraphQL runs (src/admin-auth.ts), so a request without
// a live token never reaches the schema (401), and every context has an
// acting admin.
import type { PaymentRequestService } from '../domain/payments/service.js';
import type { Logger } from 'pino';
import type { AdminActions } from '../domain/admin/actions.js';
import type { WebhookEndpoints } from '../domain/webhooks/endpoints.js';
import type { LineChannels } from '../domain/line/channels.js';
import type { PaymentResolutions } from '../domain/payments/resolve.js';
import { tokenActor } from '../domain/admin/tokens.js';
import type { AdminToken } from '../domain/types.js';
import type { Store } from '../domain/ports/store.js';
import type { DomainHealth } from '../upstream/pool.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface GraphqlDeps {
  /** Reads only; every write goes through `actions`. */
  store: Store;
  actions: AdminActions;
  /** Webhook endpoint changes and redeliveries, with their audit trail. */
  webhooks: WebhookEndpoints;
  /** LINE channels of accounts, with their audit trail. */
  lineChannels: LineChannels;
  /** Staff resolutions of payment requests ("this slip paid that order"), with their audit trail. */
  resolutions: PaymentResolutions;
  upstreamHealth: () => DomainHealth[];
  logger: Logger;
  /** Payment requests staff make and cancel from the dashboard, and their checkout links; absent: those mutations answer NOT_FOUND. */
  payments?: { service: PaymentRequestService; checkoutUrl: (requestId: string) => string | null };
}

/** What yoga gets from express for each request. */
export interface ServerContext {
  admin: AdminToken;
}

export interface GraphqlContext extends GraphqlDeps, ServerContext {
  /** `admin:<tokenId>:<name>`, written to ledger entries and admin events. */
  actor: string;
  loaders: Loaders;
}

export function buildContext(deps: GraphqlDeps, { admin }: ServerContext): GraphqlContext {
  return { ...deps, admin, actor: tokenActor(admin), loaders: createLoaders(deps.store) };
}
