// Mounts the GraphQL API on the admin listener: bearer token (401) → body
// size cap (413) → graphql-yoga. The public listener never gets this.
import express, { type Express } from 'express';
import { createYoga } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { AdminActions } from '../domain/admin/actions.js';
import type { LineChannels } from '../domain/line/channels.js';
import type { PaymentResolutions } from '../domain/payments/resolve.js';
import type { WebhookEndpoints } from '../domain/webhooks/endpoints.js';
import type { AdminTokenService } from '../domain/admin/tokens.js';
import type { Store } from '../domain/ports/store.js';
import type { DomainHealth } from '../upstream/pool.js';
import { armorPlugins, introspectionForAdminsOnly } from './armor.js';
import { requireAdminToken, signedInAdmin } from '../admin-auth.js';
import { buildContext, type GraphqlContext, type GraphqlDeps, type ServerContext } from './context.js';
import { createMaskError } from './errors.js';
import { graphiqlPagePolicy, mountGraphiqlSession } from './graphiql-session.js';
import { graphqlSchema } from './schema.js';

const GRAPHQL_PATH = '/graphql';
const DEFAULT_MAX_GRAPHQL_BODY_BYTES = 64 * 1024;

export interface GraphqlServerDeps {
  store: Store;
  /** Account changes with their audit trail; revocations evict the process's key cache at once. */
  admin: AdminActions;
  adminTokens: AdminTokenService;
  webhooks: WebhookEndpoints;
  lineChannels: LineChannels;
  resolutions: PaymentResolutions;
  upstreamHealth: () => DomainHealth[];
  logger: Logger;
  payments?: GraphqlDeps['payments'];
  maxBodyBytes?: number;
}

export function mountGraphql(app: Express, deps: GraphqlServerDeps): void {
  const logger = deps.logger.child({ component: 'graphql' });
  const context = { store: deps.store, actions: deps.admin, webhooks: deps.webhooks, lineChannels: deps.lineChannels, resolutions: deps.resolutions, upstreamHealth: deps.upstreamHealth, logger, ...(deps.payments ? { payments: deps.payments } : {}) };

  const yoga = createYoga<ServerContext, GraphqlContext>({
    schema: graphqlSchema(),
    graphqlEndpoint: GRAPHQL_PATH,
    context: (server) => buildContext(context, server),
    maskedErrors: { maskError: createMaskError(logger), errorMessage: 'Unexpected error.', isDev: false },
    graphiql: (_request, server) => server?.admin.role === 'admin',
    // GraphiQL's own assets, served from here (yoga's default loads them from
    // a CDN, which an admin network may not reach). Loaded on first use: 9 MB.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    landingPage: false,
    cors: false,
    multipart: false,
    logging: {
      debug: () => undefined,
      info: () => undefined,
      warn: (...args: unknown[]) => logger.warn({ detail: args }, 'graphql-yoga warning'),
      // Masked resolver errors reach yoga's log as GraphQLErrors; maskError logged them already.
      error: (...args: unknown[]) => {
        if (args[0] instanceof Error && args[0].name === 'GraphQLError') return;
        logger.error({ err: args[0], detail: args.slice(1) }, 'graphql-yoga error');
      },
    },
    plugins: [...armorPlugins(), introspectionForAdminsOnly(), graphiqlPagePolicy()],
  });

  mountGraphiqlSession(app, deps.adminTokens, GRAPHQL_PATH);
  const body = express.raw({ type: () => true, limit: deps.maxBodyBytes ?? DEFAULT_MAX_GRAPHQL_BODY_BYTES });
  app.all(GRAPHQL_PATH, requireAdminToken(deps.adminTokens), body, (req, res) => {
    return yoga(req, res, { admin: signedInAdmin(res) });
  });
}
