// One log line per request, written when the response is done.
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { scrubSecrets } from '../log.js';

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('finish', () => {
      logger.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: scrubSecrets(req.path),
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
