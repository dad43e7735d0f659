// The re-check pass (schedules/rechecks.ts runs it on one instance at a time):
// each due re-check is asked again through the verification service, the
// same bank pool and the same path as a direct verify from the hold on, so
// a confirmed slip is charged once, with its payment, in the settle's one
// atomic write. Everything a pass needs is in the store: a restart or a
// crash loses no re-check, and a crash between a settle and its finish is
// seen by the next pass (the attempt's id is written before its hold). A
// re-check with someone to tell (a LINE chat, followUp) is told after its
// finish is written, at most once: a crash between the two loses that
// message, never a charge, and never sends it twice.
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { UpstreamFailure } from '../ports/upstream.js';
import type { CheckRequest } from '../checks/run.js';
import type { PaymentRequest } from '../payments/types.js';
import type { PaymentToPay } from '../verify/payment.js';
import type { VerifyOutcome } from '../verify/types.js';
import type { KeyedWho } from '../verify/records.js';
import type { WebhookEventType, NewWebhookDelivery } from '../webhooks/types.js';
import { recheckDelayMs, type RecheckSettings } from './start.js';
import type { Recheck, RecheckOutcome } from './types.js';
import { slipUnconfirmedEvent, verificationUnconfirmedEvent } from './view.js';

/**
 * Re-checks read at a time, and asked at once (the bank pool's own limits
 * still apply to each call). A pass reads again while a read came back full,
 * up to MAX_READS: a wave of slips kept at once is asked when due, not 200 a
 * pass interval.
 */
const PASS_LIMIT = 200;
const MAX_READS = 25;
const AT_ONCE = 4;

/** What the re-checks report to the metrics (src/metrics). */
export interface RecheckMetrics {
  /** One attempt and what the bank (or the rest of the path) said. */
  attempt(result: 'confirmed' | 'not_found' | 'bank_failure' | 'no_credit' | 'busy'): void;
  finished(outcome: RecheckOutcome): void;
}

/** One attempt of a re-check that has someone to tell (domain/line/recheck-chat.ts). */
export interface FollowedAttempt {
  /** What the slip pays once confirmed (a LINE chat's chooser); none: no request. */
  paying?: PaymentToPay;
  /** The account verified this slip meanwhile (sent again and confirmed directly): finished superseded, the bank not asked. */
  verifiedMeanwhile?: boolean;
  /** Called once the finish is written; `answer` is the attempt's own outcome when it decided it. Never rejects. */
  finished(outcome: RecheckOutcome, answer?: VerifyOutcome, result?: Record<string, unknown>): Promise<void>;
}

export interface RecheckFollowUp {
  /** Before an attempt: undefined when nobody is to be told about this re-check. */
  attempt(r: Recheck): Promise<FollowedAttempt | undefined>;
}

export interface RecheckPassDeps {
  store: Store;
  verification: { recheckSlip(who: KeyedWho, qrcode: string, slip: { sendingBank: string; transRef: string }, paying?: PaymentToPay, checks?: CheckRequest): Promise<VerifyOutcome | UpstreamFailure> };
  /** Who is told how a re-check ended besides its events (the LINE customer it came from). */
  followUp?: RecheckFollowUp;
  settings: RecheckSettings;
  endpointsFor(accountId: string, type: WebhookEventType): Promise<readonly string[]>;
  /** A new verification id for each confirmed attempt's hold. */
  newId(): string;
  now(): Date;
  logger: Logger;
  metrics?: RecheckMetrics;
  stopped?(): boolean;
}

/** One pass over the due re-checks; resolves to how many it finished. */
export async function recheckDue(deps: RecheckPassDeps): Promise<number> {
  let finished = 0;
  for (let read = 0; read < MAX_READS && !deps.stopped?.(); read++) {
    const due = await deps.store.dueRechecks(deps.now(), PASS_LIMIT);
    finished += await askAll(deps, due);
    if (due.length < PASS_LIMIT) break;
  }
  return finished;
}

/** The due re-checks, AT_ONCE at a time; how many it finished. */
async function askAll(deps: RecheckPassDeps, due: Recheck[]): Promise<number> {
  // The slips of one payment request in one lane, one after the other: once one pays it, the next is
  // superseded free, rather than charged for a request a lane beside it paid a moment before.
  // A slip sent twice in a chat while unknown to the bank: its two re-checks in one lane too, so the second finds it verified.
  const lane = (r: Recheck) => r.paymentRequestId ?? (r.lineUserId ? `slip:${r.accountId}:${r.sendingBank}:${r.transRef}` : r.id);
  const groups = new Map<string, Recheck[]>();
  for (const r of due) groups.set(lane(r), [...(groups.get(lane(r)) ?? []), r]);
  const queue = [...groups.values()];
  let finished = 0;
  const worker = async () => {
    for (let group = queue.shift(); group && !deps.stopped?.(); group = queue.shift()) {
      for (const r of group) if (!deps.stopped?.() && (await attempt(deps, r))) finished++;
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return finished;
}

/** One re-check's attempt; true when it finished it. */
async function attempt(deps: RecheckPassDeps, r: Recheck): Promise<boolean> {
  const { store } = deps;
  const told = await followed(deps, r);
  // Asked again at the next pass: without its chat, a confirmed slip would pay no order and tell no one.
  if (told === null) return false;
  const end = (outcome: RecheckOutcome, result?: Record<string, unknown>, answer?: VerifyOutcome) => finish(deps, r, { outcome, result, answer, told });
  // An earlier attempt's settle committed but its finish was not written (a crash between them).
  if (r.attemptId && (await store.verificationRecorded(r.attemptId))) return end('verified', { verificationId: r.attemptId });
  const request = r.paymentRequestId ? await store.getPaymentRequest(r.paymentRequestId) : null;
  // Paid by another slip (or this one sent again and confirmed), or cancelled: nothing left to pay, nothing charged.
  if (request && (request.status === 'paid' || request.status === 'cancelled')) return end('superseded');
  if (r.paymentRequestId && !request) return end('superseded');
  if (told?.verifiedMeanwhile) return end('superseded');

  const now = deps.now();
  const last = now.getTime() >= r.deadline.getTime();
  const attemptId = deps.newId();
  const attempts = r.attempts + 1;
  const nextAttemptAt = new Date(Math.min(now.getTime() + recheckDelayMs(deps.settings, attempts), r.deadline.getTime()));
  // Written before the hold, so that the next pass can see whether this attempt's settle committed.
  if (!(await store.postponeRecheck(r.id, { attempts, nextAttemptAt, attemptId }))) return false;

  // A chat's slip is recorded as the chat's, naming its customer, as the verification it was sent as would have been.
  const chat = r.lineUserId ? ({ source: 'line', lineUserId: r.lineUserId } as const) : {};
  const who: KeyedWho = { id: attemptId, requestId: r.requestId, accountId: r.accountId, keyId: r.keyId, ...chat };
  const checks = r.options ? (JSON.parse(r.options) as CheckRequest) : undefined;
  const outcome = await deps.verification.recheckSlip(who, r.qrcode, { sendingBank: r.sendingBank, transRef: r.transRef }, request ?? told?.paying, checks);
  if ('ok' in outcome) {
    deps.metrics?.attempt(outcome.kind === 'slip_not_found' ? 'not_found' : 'bank_failure');
    // An open breaker, a timeout, a bank still without the slip: asked again, until the deadline.
    return last ? unconfirmed(deps, r, request, 'not_confirmed', told) : false;
  }
  switch (outcome.kind) {
    case 'verified': {
      deps.metrics?.attempt('confirmed');
      const { slip, checks: results, paymentRequest } = outcome;
      return end('verified', { verificationId: attemptId, data: slip, ...(results ? { checks: results } : {}), ...(paymentRequest ? { paymentRequest } : {}) }, outcome);
    }
    case 'account_error':
      if (outcome.error === 'insufficient_fund') {
        // The account may be topped up before the deadline: kept till then.
        deps.metrics?.attempt('no_credit');
        return last ? unconfirmed(deps, r, request, 'no_credit', told) : false;
      }
      deps.metrics?.attempt('confirmed');
      // The receiver policy refused it, or the account was deleted: free, like a direct verify.
      return end('refused', undefined, outcome);
    default:
      // Busy, or a store that failed (a settle that may have committed is looked up by the next pass): asked again.
      deps.metrics?.attempt('busy');
      if (outcome.kind === 'unavailable' || outcome.kind === 'outcome_unknown') deps.logger.warn({ recheckId: r.id, outcome: outcome.kind }, 're-check attempt could not finish; it is tried again');
      return false;
  }
}

/** The deadline passed: unconfirmed (or no credit), nothing charged, the request open again, with its event. */
async function unconfirmed(deps: RecheckPassDeps, r: Recheck, request: PaymentRequest | null, reason: 'not_confirmed' | 'no_credit', told: FollowedAttempt | undefined): Promise<boolean> {
  const at = deps.now();
  let deliveries: readonly NewWebhookDelivery[];
  if (request) deliveries = slipUnconfirmedEvent(await deps.endpointsFor(r.accountId, 'payment_request.slip_unconfirmed'), at)(request, r, reason);
  else deliveries = verificationUnconfirmedEvent(await deps.endpointsFor(r.accountId, 'verification.unconfirmed'), at)(r, reason);
  return finish(deps, r, { outcome: reason === 'no_credit' ? 'no_credit' : 'unconfirmed', deliveries, told });
}

interface Finish {
  outcome: RecheckOutcome;
  result?: Record<string, unknown> | undefined;
  deliveries?: readonly NewWebhookDelivery[];
  answer?: VerifyOutcome | undefined;
  told?: FollowedAttempt | undefined;
}

async function finish(deps: RecheckPassDeps, r: Recheck, f: Finish): Promise<boolean> {
  const done = await deps.store.finishRecheck(r.id, { outcome: f.outcome, at: deps.now(), result: f.result ? JSON.stringify(f.result) : null }, f.deliveries);
  if (!done) return false;
  deps.metrics?.finished(f.outcome);
  // After the finish, never before: told once by the pass that finished it (a crash here loses the message).
  await f.told?.finished(f.outcome, f.answer, f.result);
  return true;
}

/** Whom this re-check's end is told to, read before its attempt; null when that read failed. */
async function followed(deps: RecheckPassDeps, r: Recheck): Promise<FollowedAttempt | undefined | null> {
  if (!deps.followUp) return undefined;
  try {
    return await deps.followUp.attempt(r);
  } catch (err) {
    deps.logger.warn({ err, recheckId: r.id }, 're-check: whom to tell could not be read; it is tried again at the next pass');
    return null;
  }
}
