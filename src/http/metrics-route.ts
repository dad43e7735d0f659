// GET /metrics on the admin listener (never the public port): Prometheus
// text format. With METRICS_TOKEN set, a scrape must send it as a Bearer token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Express, Request } from 'express';
import type { Logger } from 'pino';
import { sendError } from './json-errors.js';

const METRICS_PATH = '/metrics';

export interface MetricsRouteOptions {
  /** The text to serve: this process's figures, or the whole cluster's. */
  text(): Promise<string>;
  contentType: string;
  token?: string;
  logger: Logger;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function mountMetrics(app: Express, opts: MetricsRouteOptions): void {
  const expected = opts.token === undefined ? null : digest(opts.token);
  const allowed = (req: Request): boolean => {
    if (!expected) return true;
    const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    // Compared as digests: equal lengths, and no timing hint about the token.
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
  app.get(METRICS_PATH, async (req, res) => {
    if (!allowed(req)) {
      res.setHeader('www-authenticate', 'Bearer realm="slipgate metrics"');
      sendError(res, 401, 'metrics need the METRICS_TOKEN as a Bearer token');
      return;
    }
    try {
      const body = await opts.text();
      res.setHeader('content-type', opts.contentType);
      res.setHeader('cache-control', 'no-store');
      res.send(body);
    } catch (err) {
      opts.logger.error({ err }, 'collecting metrics failed');
      sendError(res, 503, 'metrics are unavailable right now');
    }
  });
}
