// The upstream port: one verification network call. Adapters (sandbox, kbank,
// scb) implement Upstream; the pool picks one per request at random.
import type { RawSlipData } from '../domain/types.js';

export interface SlipQuery {
  sendingBank: string;
  transRef: string;
  requestId: string;
}

export type UpstreamFailureKind =
  | 'slip_not_found'
  | 'upstream_timeout'
  | 'upstream_error'
  | 'upstream_unavailable';

export type UpstreamResult =
  | { ok: true; data: RawSlipData; upstream: string }
  | { ok: false; kind: UpstreamFailureKind; message: string; upstream: string | null };

export interface Upstream {
  /** Domain configuration name, recorded in audit records. */
  readonly name: string;
  /**
   * Resolves (never rejects) before `signal` aborts or right after. On abort
   * the caller answers a timeout itself; adapters need not.
   */
  verify(query: SlipQuery, signal: AbortSignal): Promise<UpstreamResult>;
  close?(): Promise<void> | void;
}
