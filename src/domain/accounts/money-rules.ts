// Money decisions every store engine shares. The engines perform them as
// atomic writes; what they mean is decided here, once.
import { UPSTREAM_MESSAGES } from '../errors.js';
import type { LedgerEntry, RequestErrorRecord } from '../types.js';

/**
 * An idempotency key replays only the very change it was first used for:
 * same account, same amount, same kind (a top-up key is not an adjustment's).
 */
export function isSameLedgerChange(prior: LedgerEntry, entry: LedgerEntry): boolean {
  return prior.accountId === entry.accountId && prior.delta === entry.delta && prior.kind === entry.kind;
}

/** The failure recorded when crash recovery refunds a hold (the request is gone, so the hold id stands in for it). */
export function interruptedFailure(hold: { id: string; accountId: string; keyId: string | null }, now: Date): RequestErrorRecord {
  return {
    id: hold.id,
    accountId: hold.accountId,
    keyId: hold.keyId,
    requestId: hold.id,
    qrcode: null,
    transactionId: null,
    sendingBank: null,
    kind: 'interrupted',
    message: UPSTREAM_MESSAGES.interrupted,
    upstream: null,
    latencyMs: null,
    createdAt: now,
  };
}
