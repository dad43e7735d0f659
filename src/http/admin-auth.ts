// Admin authentication on the admin listener, in one place for every route
// that needs it (GraphQL, the audit download): `Authorization: Bearer
// sgadm_…` naming a live admin token, checked before anything else runs.
import type { RequestHandler, Response } from 'express';
import type { AdminTokenService } from '../domain/admin-tokens.js';
import type { AdminToken } from '../domain/types.js';
import { sendError } from './json-errors.js';

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

/** The token `requireAdminToken` let through, for the handlers after it. */
export function signedInAdmin(res: Response): AdminToken {
  return res.locals.admin as AdminToken;
}
