// What a verification that threw becomes: logged, and answered with what the caller may do.
import type { Logger } from '../ports/logger.js';
import { constraintViolation } from '../ports/store.js';
import type { VerifyOutcome } from './types.js';

const UNAVAILABLE: VerifyOutcome = { kind: 'unavailable', message: 'service temporarily unavailable' };

/** A store failure while recording a success: whether the charge committed is unknown. */
export class SettleFailedError extends Error {
  constructor(cause: unknown) {
    super('recording a verified slip failed', { cause });
  }
}

/** `outcome_unknown` after a failed settle (the charge may have committed), else a plain 503 with nothing charged. */
export function failureOutcome(err: unknown, requestId: string, logger: Logger): VerifyOutcome {
  logFailure(err, requestId, logger);
  return err instanceof SettleFailedError ? { kind: 'outcome_unknown' } : UNAVAILABLE;
}

function logFailure(err: unknown, requestId: string, logger: Logger): void {
  // No write on this path can clash with another by design (ids are new, holds and accounts are
  // checked under the row or document lock): a database rule that refuses one shows a broken guard.
  const broken = constraintViolation(err);
  if (broken) {
    logger.error(
      { err, requestId, constraint: broken.constraint, bug: true },
      `bug: a write of a verification broke the database rule ${broken.constraint}; the database refused it (nothing was written) and the request failed`,
    );
  } else {
    logger.error({ err, requestId }, 'verification failed inside slipgate');
  }
}
