// The built-in sandbox network: answers every well-formed slip QR from its
// transRef, with no bank behind it. Used when no UPSTREAMS are configured.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BankAdapter, BankAnswer, SlipQuery } from '../../domain/ports/upstream.js';
import { sandboxAnswer, sandboxTransaction } from './transaction.js';

export class SandboxUpstream implements BankAdapter {
  constructor(
    readonly name = 'sandbox',
    /** Simulated network latency, for demos and benchmarks. */
    private readonly latencyMs = 0,
    /** When late slips (`sandbox qr --outcome late`) become known; tests move it instead of waiting. */
    private readonly now: () => number = Date.now,
  ) {}

  async verify(query: SlipQuery, signal: AbortSignal): Promise<BankAnswer> {
    const outcome = sandboxAnswer(query.transRef, this.now());
    try {
      if (outcome === 'timeout') await sleep(2 ** 31 - 1, undefined, { signal });
      if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal });
    } catch {
      return { ok: false, kind: 'upstream_timeout', message: 'verification service timed out', upstream: this.name };
    }
    switch (outcome) {
      case 'not-found':
        return { ok: false, kind: 'slip_not_found', message: 'slip not found: transaction not found or too old', upstream: this.name };
      case 'error':
        return { ok: false, kind: 'upstream_error', message: 'verification service error: sandbox was asked to fail', upstream: this.name };
      default:
        return { ok: true, data: sandboxTransaction(query.sendingBank, query.transRef), upstream: this.name };
    }
  }
}
