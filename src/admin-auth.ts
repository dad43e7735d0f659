// Admin authentication on the admin listener, in one place for every route
// that needs it: `Authorization: Bearer sgadm_…` (GraphQL, the audit
// download) or, where a browser navigates and cannot add a header, the token
// posted in a form's body (GraphiQL from a dashboard session). Checked before
// anything else runs.
import type { Request, RequestHandler, Response } from 'express';
import type { AdminTokenService } from './domain/admin/tokens.js';
import type { AdminToken } from './domain/types.js';
import { sendError } from './http/json-errors.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** 401 JSON unless `Authorization: Bearer sgadm_…` names a live token; then `signedInAdmin(res)` is that token. */
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

/**
 * 401 JSON unless the urlencoded body's `token` field names a live token;
 * then `signedInAdmin(res)` is that token. Mount after a body parser.
 */
export function requireAdminFormToken(tokens: AdminTokenService): RequestHandler {
  return async (req, res, next) => {
    const secret = formToken(req);
    const admin = secret === '' ? null : await tokens.authenticate(secret);
    if (!admin) return sendError(res, 401, 'a valid admin token is required: sign in to the dashboard again');
    res.locals.admin = admin;
    next();
  };
}

/** The `token` field of a parsed form body, '' when there is none. */
export function formToken(req: Request): string {
  const body = req.body as Record<string, unknown> | undefined;
  return typeof body?.token === 'string' ? body.token : '';
}

/** The token a `requireAdmin…` check let through, for the handlers after it. */
export function signedInAdmin(res: Response): AdminToken {
  return res.locals.admin as AdminToken;
}

/** After a token check: 403 JSON unless the signed-in token has the admin role. */
export function requireAdminRole(message: string): RequestHandler {
  return (_req, res, next) => (signedInAdmin(res).role === 'admin' ? next() : sendError(res, 403, message));
}
