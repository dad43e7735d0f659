// The upstream port: one verification network call. Bank adapters (sandbox,
// kbank, scb) implement BankAdapter and hand back the bank's data as it came;
// the pool (the only Upstream) picks a domain per request and accepts an
// answer only after the domain's rule in domain/bank-answer.ts, so no
// provider, present or future, can skip that check.
import type { VerifiedSlip } from '../types.js';

export interface SlipQuery {
  sendingBank: string;
  transRef: string;
  requestId: string;
}

export type UpstreamFailureKind =
  | 'slip_not_found'
  | 'upstream_timeout'
  | 'upstream_error'
  | 'upstream_unavailable'
  | 'upstream_mismatch';

export type UpstreamFailure = { ok: false; kind: UpstreamFailureKind; message: string; upstream: string | null };

/** What the domain receives: a slip already checked against the query. */
export type UpstreamResult = { ok: true; slip: VerifiedSlip; upstream: string } | UpstreamFailure;

/** What an adapter receives from its bank: data not yet trusted. */
export type BankAnswer = { ok: true; data: unknown; upstream: string } | UpstreamFailure;

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

export type BankAdapter = Verifier<BankAnswer>;
export type Upstream = Verifier<UpstreamResult>;
