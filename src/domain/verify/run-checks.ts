// The checks a verification asked for, run after its charge.
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { VerifiedSlip } from '../types.js';
import { evaluateChecks, type CheckRequest, type CheckResults } from '../checks/run.js';
import { duplicateHistory } from '../checks/duplicate-history.js';
import type { KeyedWho } from './records.js';
import type { PaymentVerdict } from '../payments/paying.js';
import type { ReceiverResult } from '../checks/types.js';
import type { VerifyOutcome } from './types.js';

/** After settling, so the duplicate lookup can leave this verification out. */
async function runChecks(deps: { store: Store; logger: Logger }, checks: CheckRequest, data: VerifiedSlip, who: KeyedWho, now: () => Date): Promise<CheckResults> {
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

/** A success as the route answers it: the slip, its payment verdict, and the checks asked for (with the receiver's). */
export async function verifiedAnswer(
  deps: { store: Store; logger: Logger },
  now: () => Date,
  who: KeyedWho,
  facts: { data: VerifiedSlip; qrcode: string; credits: number; payment: PaymentVerdict | undefined; receiver: ReceiverResult | undefined },
  checks?: CheckRequest,
): Promise<VerifyOutcome> {
  const { data, qrcode, credits, payment, receiver } = facts;
  const verified = { kind: 'verified', slip: data, qrcode, creditsRemaining: credits, ...(payment ? { paymentRequest: payment } : {}) } as const;
  return !checks && !receiver ? verified : { ...verified, checks: { ...(checks ? await runChecks(deps, checks, data, who, now) : {}), ...(receiver ? { receiver } : {}) } };
}
