// "Was this slip already used?": the caller's own account's other successful
// verifications of the same slip. Fails closed when the history is unknown.
import { z } from 'zod';
import { defineCheck } from './check.js';
import type { DuplicateHistory, DuplicateResult, DuplicateUnknown } from './types.js';

export const duplicateCheck = defineCheck({
  name: 'duplicate',
  request: z.boolean({ error: 'checks.duplicate must be true or false' }).meta({
    description:
      "Report the caller's own account's other successful verifications of the same slip (same transactionId and sending bank). Never looks at other accounts.",
  }),
  keep: (duplicate: boolean) => ({ ok: true, request: { duplicate } }),
  evaluate: (req, _slip, ctx) => (req.duplicate ? duplicateResult(ctx.history ?? { error: 'duplicate history was not looked up' }) : undefined),
});

function duplicateResult(history: DuplicateHistory): DuplicateResult | DuplicateUnknown {
  // Fail closed: a merchant who asked "already used?" must not read "no" when we do not know.
  if ('error' in history) return { passed: false, error: history.error };
  return {
    passed: history.count === 0,
    seen: history.count > 0,
    count: history.count,
    firstVerifiedAt: history.firstVerifiedAt ? history.firstVerifiedAt.toISOString() : null,
  };
}
