// GET /api/v1/verifications/{id}: what became of a slip answered 202
// pending (docs/contract.md#re-checks). Same x-api-key, key gate and brake
// as every keyed route (keyed.ts); another account's verification is "not
// found", never shown.
import express, { type RequestHandler, type Router } from 'express';
import type { Store } from '../domain/ports/store.js';
import { verificationView } from '../domain/rechecks/view.js';
import { methodNotAllowed, sendError } from './json-errors.js';
import { callerOf } from './keyed.js';

export const VERIFICATIONS_PATH = '/api/v1/verifications';

export function verificationRoutes(deps: { store: Store; keyed: RequestHandler }, byKey: RequestHandler): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.get('/:id', byKey, deps.keyed, async (req, res) => {
    const recheck = await deps.store.getRecheck(String(req.params.id));
    if (!recheck || recheck.accountId !== callerOf(res).accountId) return sendError(res, 404, 'verification not found');
    res.status(200).json(verificationView(recheck));
  });
  router.all('/:id', methodNotAllowed('GET'));
  return router;
}
