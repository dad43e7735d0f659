// The checks a verification asked for, run after its charge.
import type { Logger } from './ports/logger.js';
import type { Store } from './ports/store.js';
import type { VerifiedSlip } from './types.js';
import { evaluateChecks, type CheckRequest, type CheckResults } from './checks.js';
import { duplicateHistory } from './duplicate-history.js';
import type { KeyedWho } from './verify-records.js';

/** After settling, so the duplicate lookup can leave this verification out. */
export async function runChecks(deps: { store: Store; logger: Logger }, checks: CheckRequest, data: VerifiedSlip, who: KeyedWho, now: () => Date): Promise<CheckResults> {
  const history = checks.duplicate
    ? await duplicateHistory(deps.store, { accountId: who.accountId, transactionId: data.transactionId, sendingBank: data.senderBankCode, excludeId: who.id }).catch(
        (err: unknown) => {
          // Already charged: answer the verification, report the check as unknown.
          deps.logger.error({ err, requestId: who.requestId }, 'duplicate check lookup failed');
          return { error: 'could not look up earlier verifications; the slip was verified and charged' };
        },
      )
    : undefined;
  return evaluateChecks(checks, data, { now: now(), history });
}
