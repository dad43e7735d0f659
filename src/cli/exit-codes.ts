// Exit statuses of `slipgate serve` that mean more than "failed".

/**
 * The store failed for good (a failed fsync, src/store/sqlite/store-failure.ts):
 * in-flight requests were answered, and a restart (whose start recovers the
 * database) is what the process asks its supervisor for. 75 is EX_TEMPFAIL.
 */
export const EXIT_STORE_FAILED = 75;
