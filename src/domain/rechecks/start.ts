// Starting a re-check: the verify path's bank said "not found" (or could not
// answer) for a slip sent for a payment request, or with `"recheck": true`.
// The hold is released already; here the slip is kept to be asked again
// (worker.ts), within the account's bound, and the caller is told "pending".
import { RECHECK_LIMIT } from '../errors.js';
import type { Store } from '../ports/store.js';
import type { UpstreamFailureKind } from '../ports/upstream.js';
import type { CheckRequest } from '../checks/run.js';
import type { SlipRef } from '../verify/slip-qr.js';
import type { Late, LineChat, VerifyOutcome } from '../verify/types.js';
import type { KeyedWho } from '../verify/records.js';
import type { PaymentToPay } from '../verify/payment.js';
import type { Recheck } from './types.js';

export interface RecheckSettings {
  /** RECHECK_MINUTES in ms: how long a slip is asked again before it is unconfirmed. */
  windowMs: number;
  /** RECHECK_MAX_PER_ACCOUNT: slips one account may have being re-checked at once. */
  maxPerAccount: number;
  /** The delay before the first re-check, doubling after each (default 15 s). */
  firstDelayMs?: number;
  /** The longest delay between two re-checks (default 2 min). */
  maxDelayMs?: number;
}

/**
 * Open re-checks one LINE customer (a user of one channel) may have: a
 * customer has a slip or two the bank is slow to publish, not the account's
 * whole bound (RECHECK_MAX_PER_ACCOUNT, 100), which a stranger sending
 * slip-shaped text could otherwise fill (docs/line.md#what-a-stranger-can-cost).
 */
export const RECHECK_MAX_PER_LINE_USER = 3;

/**
 * Open re-checks one payment request may have: its checkout page's visitor,
 * or the API caller paying it. One slip pays it; a second is a customer's
 * retry, a third is plenty.
 */
export const RECHECK_MAX_PER_PAYMENT_REQUEST = 3;

/** What a bank may yet answer differently: it did not know the slip yet, or it did not answer. A mismatch is a refusal. */
const RECHECKABLE: ReadonlySet<UpstreamFailureKind> = new Set(['slip_not_found', 'upstream_timeout', 'upstream_error', 'upstream_unavailable']);

/**
 * A payment request still payable (pending, or expired: an in-time
 * transfer found later still pays it, payable.ts) re-checks its slips; a
 * plain verify only when it opted in; a slip sent in a LINE chat always
 * (its chooser picks the request, if any, once the bank confirms it).
 */
function shouldRecheck(kind: string, paying: PaymentToPay | undefined, late: { optIn: boolean; line?: LineChat }): boolean {
  if (!RECHECKABLE.has(kind as UpstreamFailureKind)) return false;
  if (late.line) return true;
  if (typeof paying === 'function') return false;
  return paying ? paying.status === 'pending' || paying.status === 'expired' : late.optIn;
}

/** The delay after `attempts` re-checks: the first delay doubled each time, capped. */
export function recheckDelayMs(settings: RecheckSettings, attempts: number): number {
  return Math.min((settings.firstDelayMs ?? 15_000) * 2 ** Math.min(attempts, 20), settings.maxDelayMs ?? 120_000);
}

/** A network that said when it publishes the slip (a slip API's "bank delayed") is not asked sooner, nor later than a day. */
const MAX_NETWORK_DELAY_MS = 24 * 3_600_000;

/**
 * The first re-check: the usual first delay, or the network's own delay when
 * it named a longer one; the deadline then stretches to hold that attempt.
 */
function firstAttemptAt(settings: RecheckSettings, at: Date, retryAfterMs: number | undefined): Date {
  const network = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) ? Math.min(Math.max(retryAfterMs, 0), MAX_NETWORK_DELAY_MS) : 0;
  return new Date(at.getTime() + Math.max(recheckDelayMs(settings, 0), network));
}

/**
 * After the bank's failure and the hold's release: undefined when the slip
 * is answered as the bank said; else the slip is kept (the verification's
 * id is the re-check's) and the answer is pending, or a refusal beyond the
 * account's bound.
 */
export async function recheckInstead(
  store: Store,
  settings: RecheckSettings | undefined,
  late: Late | undefined,
  kind: string,
  facts: { who: KeyedWho; qrcode: string; slip: SlipRef; paying: PaymentToPay | undefined; checks: CheckRequest | undefined; at: Date; retryAfterMs?: number },
  creditsRemaining: number,
): Promise<VerifyOutcome | undefined> {
  const { who, paying, at } = facts;
  if (!settings || !late || !('optIn' in late) || !shouldRecheck(kind, paying, late)) return undefined;
  const request = typeof paying === 'object' ? paying : undefined;
  const first = firstAttemptAt(settings, at, facts.retryAfterMs);
  const recheck: Recheck = {
    id: who.id,
    accountId: who.accountId,
    keyId: who.keyId,
    requestId: who.requestId,
    paymentRequestId: request?.id ?? null,
    qrcode: facts.qrcode,
    sendingBank: facts.slip.sendingBank,
    transRef: facts.slip.transRef,
    options: facts.checks ? JSON.stringify(facts.checks) : null,
    createdAt: at,
    deadline: new Date(Math.max(at.getTime() + settings.windowMs, first.getTime())),
    nextAttemptAt: first,
    attempts: 0,
    attemptId: null,
    outcome: null,
    finishedAt: null,
    result: null,
    lineChannelId: late.line?.channelId ?? null,
    lineUserId: late.line?.userId ?? null,
  };
  const full = (await sourceFull(store, recheck, settings.maxPerAccount)) || !(await store.createRecheck(recheck, settings.maxPerAccount));
  if (full) return { kind: 'recheck_limit', message: RECHECK_LIMIT.message, creditsRemaining };
  return { kind: 'pending', verificationId: who.id, ...(request ? { paymentRequest: { id: request.id, status: 'verifying' } } : {}), creditsRemaining };
}

/**
 * Whether the LINE customer or the payment request the slip came from has
 * its own bound of open re-checks already. Read before the insert: a burst
 * of one source may pass it by a few, as the account's bound on PostgreSQL
 * and MongoDB (store-rechecks.ts), and never the account's.
 */
async function sourceFull(store: Store, recheck: Recheck, maxPerAccount: number): Promise<boolean> {
  const { accountId, paymentRequestId, lineChannelId, lineUserId } = recheck;
  if (paymentRequestId !== null) {
    const open = await store.openRechecks({ accountId, paymentRequestId, limit: RECHECK_MAX_PER_PAYMENT_REQUEST });
    if (open.length >= RECHECK_MAX_PER_PAYMENT_REQUEST) return true;
  }
  if (lineUserId === null) return false;
  // The account's open ones are at most its bound: read once, counted here.
  const open = await store.openRechecks({ accountId, limit: maxPerAccount });
  return open.filter((r) => r.lineChannelId === lineChannelId && r.lineUserId === lineUserId).length >= Math.min(RECHECK_MAX_PER_LINE_USER, maxPerAccount);
}
