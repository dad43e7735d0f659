// JSON answers for everything that is not a verification: unknown routes,
// wrong methods, body parser failures and our own bugs. Nothing else about
// the server (stack, framework) is revealed.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { BodyProblem } from '../domain/verify/types.js';
import { BODY_PROBLEM_STATUS } from './verify-answer.js';

export function sendError(res: Response, status: number, message: string): void {
  res.status(status).json({ status: 'error', message });
}

export const notFound: RequestHandler = (_req, res) => sendError(res, 404, 'not found');

export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('allow', allow);
    sendError(res, 405, `method not allowed; use ${allow}`);
  };
}

interface HttpError {
  type?: string;
  status?: number;
  limit?: number;
}

/** What a body-parser failure means for the client; null when it is not one. */
export function bodyReadProblem(err: unknown): BodyProblem | null {
  const e = (err ?? {}) as HttpError;
  switch (e.type) {
    case 'entity.too.large':
      return { problem: 'too_large', message: `request body is larger than ${e.limit ?? 'the limit of'} bytes` };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { problem: 'unsupported_media_type', message: 'unsupported content encoding or charset' };
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return { problem: 'invalid', message: 'request body could not be read' };
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next) => {
    const e = (err ?? {}) as HttpError;
    if (res.headersSent) return;
    const problem = bodyReadProblem(err);
    if (problem) return sendError(res, BODY_PROBLEM_STATUS[problem.problem], problem.message);
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, e.status, 'bad request');
    logger.error({ err, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
    sendError(res, 500, 'internal error');
  };
}
