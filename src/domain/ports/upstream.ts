// The upstream port: one verification network call. Bank adapters (sandbox,
// kbank, scb) implement BankAdapter and hand back the bank's data as it came;
// the pool (the only Upstream) picks a domain per request and accepts an
// answer only after the domain's rule in domain/bank-answer.ts, so no
// provider, present or future, can skip that check.
import type { VerifiedSlip } from '../types.js';

export interface SlipQuery {
  sendingBank: string;
  transRef: string;
  /** The slip's QR text as the merchant sent it (or as read from the picture): what slip APIs take. */
  qrcode: string;
  requestId: string;
}

export type UpstreamFailureKind =
  | 'slip_not_found'
  | 'upstream_timeout'
  | 'upstream_error'
  | 'upstream_unavailable'
  | 'upstream_mismatch';

export type UpstreamFailure = {
  ok: false;
  kind: UpstreamFailureKind;
  message: string;
  upstream: string | null;
  /**
   * The network said when to ask again (a bank that publishes late: SlipOK
   * 1009/1010, EasySlip's pending slip, RDCW 20001/20002): a re-check of this
   * slip is not tried sooner. Free like every failure.
   */
  retryAfterMs?: number;
};

/** What the domain receives: a slip already checked against the query. */
export type UpstreamResult = { ok: true; slip: VerifiedSlip; upstream: string } | UpstreamFailure;

/**
 * What an adapter receives from its bank: data not yet trusted. `data` is
 * the network's transaction exactly as it came (the caller's rawData). A slip
 * API whose record is not the banks' shape also hands `transaction`: the
 * same slip in the banks' record (RawSlipData: transRef, sendingBank,
 * transDate, transTime, amount, sender, receiver…), built by its adapter;
 * the answer rule and the mapping read that, rawData stays `data`.
 */
export type BankAnswer = { ok: true; data: unknown; upstream: string; transaction?: unknown } | UpstreamFailure;

/**
 * A domain's remaining quota as its provider reports it, read without
 * spending a verification. `remaining: null` is a package without a limit.
 * A refusal that means the domain cannot serve at all (key refused, package
 * expired, IP not allowed) carries `unusable` with the reason.
 */
/**
 * A quota call's reading. `unasked`: the provider has no free call (RDCW
 * reports its quota only with a verification), so nothing was sent.
 */
export type QuotaReading = { ok: true; remaining: number | null } | { ok: false; message: string; unusable?: string; unasked?: true };

interface Verifier<R> {
  /** Domain configuration name, recorded in audit records. */
  readonly name: string;
  /**
   * Resolves (never rejects) before `signal` aborts or right after. On abort
   * the caller answers a timeout itself; adapters need not.
   */
  verify(query: SlipQuery, signal: AbortSignal): Promise<R>;
  close?(): Promise<void> | void;
}

export interface BankAdapter extends Verifier<BankAnswer> {
  /** Slip APIs only: the quota call (never a verification). Banks have no quota. */
  readQuota?(signal: AbortSignal): Promise<QuotaReading>;
}
export type Upstream = Verifier<UpstreamResult>;
