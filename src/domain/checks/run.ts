// Opt-in merchant checks: "was this slip already used?" and "is it the
// amount, receiver and age I expect?". Each check is one file under checks/
// and one line in checks/registry.ts. Pure functions over the verified slip;
// the duplicate history is looked up by the caller and passed in. Checks
// never change verification, charging or `status`: they only report.
import { CHECKS } from './registry.js';
import type { CheckContext, CheckRequest, CheckResults } from './types.js';
import type { VerifiedSlip } from '../types.js';

export type {
  AmountResult,
  CheckRequest,
  CheckResults,
  DuplicateHistory,
  DuplicateResult,
  DuplicateUnknown,
  MaxAgeResult,
  ReceiverAccountResult,
  ReceiverNameResult,
  ReceiverResult,
} from './types.js';
export { accountMatches, nameMatches } from './receiver-rules.js';
export { nameTokens } from './names.js';

export const CHECK_NAMES = CHECKS.map((c) => c.name);

export function evaluateChecks(req: CheckRequest, slip: VerifiedSlip, ctx: CheckContext): CheckResults {
  const out: Record<string, unknown> = {};
  for (const check of CHECKS) {
    const result = check.evaluate(req, slip, ctx);
    if (result !== undefined) out[check.name] = result;
  }
  return out as CheckResults;
}
