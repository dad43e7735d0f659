// One opt-in merchant check: its part of the request (a zod schema, which is
// also where openapi.json and the client's types come from; see
// scripts/contract.ts), how a valid value is kept, and what it reports.
import type { z } from 'zod';
import type { VerifiedSlip } from '../types.js';
import type { CheckContext, CheckName, CheckRequest, CheckResults } from './types.js';

export type CheckParse = { ok: true; request: CheckRequest } | { ok: false; message: string };

export interface Check<N extends CheckName = CheckName> {
  /** The key in the request's and in the answer's `checks`. */
  name: N;
  /** The request value as sent on the wire; every constraint carries the message a caller reads. */
  request: z.ZodType;
  /** A value the schema accepted, as the evaluation needs it; a message when it still cannot be used. */
  keep(value: never): CheckParse;
  /** Undefined when the request did not ask for this check. */
  evaluate(req: CheckRequest, slip: VerifiedSlip, ctx: CheckContext): CheckResults[N] | undefined;
}

/** Keeps each check's own value type while it is written; the registry handles them alike. */
export function defineCheck<N extends CheckName, V>(check: Omit<Check<N>, 'keep' | 'request'> & { request: z.ZodType<V>; keep(value: V): CheckParse }): Check<N> {
  return check as unknown as Check<N>;
}
