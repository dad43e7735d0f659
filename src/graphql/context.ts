// Who is asking and what resolvers may use. The bearer token is checked by
// express before GraphQL runs, so a request without a live token never
// reaches the schema (401), and every context has an acting admin.
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AdminActions } from '../domain/admin-actions.js';
import type { WebhookEndpoints } from '../domain/webhooks/endpoints.js';
import { tokenActor, type AdminTokenService } from '../domain/admin-tokens.js';
import type { AdminToken } from '../domain/types.js';
import { sendError } from '../http/json-errors.js';
import type { Store } from '../domain/ports/store.js';
import type { DomainHealth } from '../upstream/pool.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface GraphqlDeps {
  /** Reads only; every write goes through `actions`. */
  store: Store;
  actions: AdminActions;
  /** Webhook endpoint changes and redeliveries, with their audit trail. */
  webhooks: WebhookEndpoints;
  upstreamHealth: () => DomainHealth[];
  logger: Logger;
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

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** 401 JSON unless `Authorization: Bearer sgadm_…` names a live token; sets res.locals.admin. */
export function requireAdminToken(tokens: AdminTokenService): RequestHandler {
  return async (req, res, next) => {
    const secret = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const admin = secret ? await tokens.authenticate(secret) : null;
    if (!admin) {
      res.setHeader('www-authenticate', 'Bearer realm="slipgate-admin"');
      return sendError(res, 401, 'a valid admin token is required (Authorization: Bearer sgadm_…)');
    }
    res.locals.admin = admin;
    next();
  };
}
