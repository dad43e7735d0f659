// How a public route other than POST /api/v1/verify (which goes through the
// same gate inside the verification path) takes an x-api-key: the key gate
// (src/domain/keys/gate.ts) with the brake, its 429s held by the tarpit, and
// the refusals answered as the verify route answers them. A route learns
// its caller only from callerOf(), which only this middleware sets: a keyed
// route added without it fails on its first request instead of serving an
// unauthenticated caller.
import { ipKeyGenerator } from 'express-rate-limit';
import type { RequestHandler, Response } from 'express';
import type { KeyGate } from '../domain/keys/gate.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Tarpit } from './tarpit.js';
import { verifyAnswer } from './verify-answer.js';

/** The key's account and id, as the gate admitted them. */
export interface Caller {
  accountId: string;
  keyId: string;
}

/** Where keyed() leaves the caller; nothing else writes it. */
const CALLER = 'slipgateKeyedCaller';

export function keyed(gate: KeyGate, opts: { tarpit?: Tarpit; metrics?: Metrics } = {}): RequestHandler {
  return (req, res, next) => {
    const header = req.headers['x-api-key'];
    gate
      .admit({
        apiKey: typeof header === 'string' ? header : undefined,
        requestId: res.locals.requestId as string,
        clientIp: req.ip,
        // IPv6 by its /56, as the verify route and the per-IP limit count it.
        clientAddress: req.ip === undefined ? undefined : ipKeyGenerator(req.ip),
      })
      .then((admitted) => {
        if (admitted.ok) {
          res.locals[CALLER] = { accountId: admitted.key.accountId, keyId: admitted.key.id } satisfies Caller;
          return next();
        }
        const answer = verifyAnswer(admitted.refused);
        const send = () => void res.set(answer.headers).status(answer.status).json(answer.body);
        if (admitted.refused.kind !== 'throttled') return send();
        opts.metrics?.refused('auth_failures');
        if (opts.tarpit) opts.tarpit.answer(res, send);
        else send();
      }, next);
  };
}

/** The caller keyed() admitted; throws on a route that did not go through it. */
export function callerOf(res: Response): Caller {
  const caller = res.locals[CALLER] as Caller | undefined;
  if (!caller) throw new Error(`${res.req.method} ${res.req.path} reads its caller without keyed(): every route that takes an x-api-key goes through the key gate`);
  return caller;
}
