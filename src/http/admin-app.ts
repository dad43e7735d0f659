// The admin listener (loopback by default): health, readiness, and through
// `mount` /metrics, the internal GraphQL API and the dashboard. Never mounted
// on the public port.
import express, { type Request } from 'express';
import type { Logger } from 'pino';
import { StoreFailedError, type Store } from '../domain/ports/store.js';
import { accessLog } from './access-log.js';
import { errorHandler, notFound, sendError } from './json-errors.js';
import { requestId } from './request-id.js';

export interface AdminAppDeps {
  store: Store;
  logger: Logger;
  /** Extra routers (/metrics, GraphQL, dashboard) mounted before the 404. */
  mount?: (app: express.Express) => void;
}

export function createAdminApp(deps: AdminAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId, accessLog(deps.logger, { quiet: isDashboardFile }));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await deps.store.ping();
      res.json({ status: 'ok', store: deps.store.engine });
    } catch (err) {
      deps.logger.warn({ err }, 'readiness check failed');
      // A failed store says why (and that only a restart helps); anything else may pass.
      sendError(res, 503, err instanceof StoreFailedError ? err.message : 'store unreachable');
    }
  });
  deps.mount?.(app);
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

/** The dashboard's page and files: three of them per page load, noise at INFO. */
function isDashboardFile(req: Request): boolean {
  return req.method === 'GET' && (req.path === '/' || req.path === '/index.html' || req.path.startsWith('/assets/'));
}
