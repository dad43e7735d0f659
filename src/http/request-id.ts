// Every response carries x-request-id: the caller's own when it is a sane
// token (so they can correlate), else one we make: time-ordered, like our
// record ids, so the request-id index grows at its end.
import { timeOrderedUuid } from '../domain/time-ordered-uuid.js';
import type { NextFunction, Request, Response } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SAFE_ID.test(given) ? given : timeOrderedUuid();
  res.locals.requestId = id;
  res.setHeader('x-request-id', id);
  next();
}
