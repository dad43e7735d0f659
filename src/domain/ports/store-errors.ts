// The errors every storage engine throws, mapped to what callers can act on.

/** 'invalid_cursor': an `after` that no page handed out (the caller's mistake, not a clash of writes). */
export type StoreErrorCode = 'not_found' | 'conflict' | 'insufficient' | 'unavailable' | 'invalid_cursor';

/** Engine errors mapped to what callers can act on. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * A write the database refused for breaking one of its own rules (a unique
 * or foreign key, a CHECK such as credits >= 0, NOT NULL). 'conflict' to
 * callers that expect clashes (an id taken twice); where the code's own
 * guards should have ruled it out, as on the verify path, it is a bug.
 */
export class ConstraintViolationError extends StoreError {
  constructor(
    /** The rule, as the database names it (e.g. accounts_credits_check). */
    readonly constraint: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('conflict', message, options);
    this.name = 'ConstraintViolationError';
  }
}

/** The ConstraintViolationError behind `err`, if any (callers wrap store errors in their own). */
export function constraintViolation(err: unknown): ConstraintViolationError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ConstraintViolationError) return e;
  }
  return null;
}

/**
 * The store has stopped for good: a write whose effect on disk is unknown
 * (a failed fsync) makes anything acknowledged after it a possible lie.
 * 'unavailable' to callers, so a verification answers 503 before a charge
 * and "outcome unknown" (500) after the bank answered.
 */
export class StoreFailedError extends StoreError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('unavailable', `store failed: ${reason}; restart slipgate to recover`, options);
    this.name = 'StoreFailedError';
  }
}
