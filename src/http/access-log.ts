// One log line per request, written when the response is done. The verify
// route's line is the verification's own record (see public-app.ts), so a
// support call finds one line per slip, not two that say the same.
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { scrubSecrets } from '../log/log.js';

export interface AccessLogOptions {
  /** Names a request's line and adds its facts (the verify route's outcome); otherwise `request`. */
  describe?: (req: Request, res: Response) => { message: string; fields: Record<string, unknown> } | undefined;
  /** Logged at DEBUG: the static files every dashboard page load fetches. */
  quiet?: (req: Request) => boolean;
}

export function accessLog(logger: Logger, opts: AccessLogOptions = {}): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      const fields = {
        requestId: res.locals.requestId,
        method: req.method,
        // The full path: a router mounted under a prefix (the payment routes) sees only its rest in req.path.
        path: scrubSecrets(req.originalUrl.split('?')[0] ?? req.path),
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      const described = opts.describe?.(req, res);
      if (described) logger.info({ ...fields, ...described.fields }, described.message);
      else if (opts.quiet?.(req)) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    });
    next();
  };
}
