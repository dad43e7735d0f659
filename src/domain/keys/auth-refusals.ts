// The key gate's side of the failed-authentication brake (keys/gate.ts): asks
// it about each refused authentication (1020/1021/1024) on any keyed route,
// and writes its summaries (one record per braked address and window) when a
// window ends and when the process stops.
import type { BrakeSummary, FailedAuthBrake } from './failed-auth-brake.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { requestErrorRecord } from '../verify/records.js';

interface Deps {
  store: Store;
  logger: Logger;
  newId: () => string;
  authBrake?: FailedAuthBrake;
}

const THROTTLED = 'too many failed authentications from this address; retry later';

export class AuthRefusals {
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly deps: Deps) {}

  /** For a refused authentication: the 429 when its address is past its limit (counted), or null to answer and record it. */
  braked(address: string, requestId: string): { kind: 'throttled'; message: string; retryAfterSeconds: number } | null {
    const brake = this.deps.authBrake;
    const refused = brake?.refuse(address, requestId);
    if (!brake || !refused) return null;
    this.writeWhenWindowEnds(brake);
    return { kind: 'throttled', message: THROTTLED, retryAfterSeconds: Math.max(1, Math.ceil(refused.retryAfterMs / 1000)) };
  }

  /** Whether this refused authentication gets a record of its own. */
  record(address: string, requestId: string): boolean {
    const brake = this.deps.authBrake;
    if (!brake || brake.failed(address, requestId)) return true;
    this.writeWhenWindowEnds(brake);
    return false;
  }

  /** Writes the summaries of ended windows (all of them with `includeCurrent`); a failed write is logged, not thrown. */
  async writeSummaries(includeCurrent = false): Promise<void> {
    const brake = this.deps.authBrake;
    if (!brake) return;
    if (includeCurrent && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const summary of brake.takeSummaries(includeCurrent)) {
      await this.deps.store.insertRequestError(this.summaryRecord(brake, summary)).catch((err: unknown) => {
        this.deps.logger.error({ err, address: summary.address, unrecorded: summary.unrecorded }, 'could not record a braked address summary');
      });
    }
  }

  private summaryRecord(brake: FailedAuthBrake, s: BrakeSummary) {
    const who = { id: this.deps.newId(), requestId: s.requestId, accountId: null, keyId: null };
    const message =
      `${s.unrecorded} requests from ${s.address} between ${s.from.toISOString()} and ${s.to.toISOString()} ` +
      `not recorded one by one: answered 429 after ${brake.perWindow} refused authentications (1020, 1021, 1024)`;
    return requestErrorRecord(who, { kind: 'auth_rate_limited', message }, s.to);
  }

  /** One timer at a time: it fires once the current window ended, and writes what it counted. */
  private writeWhenWindowEnds(brake: FailedAuthBrake): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeSummaries().then(() => {
        if (brake.pending) this.writeWhenWindowEnds(brake);
      });
    }, brake.msLeft());
    // A braked address must not keep a stopping process alive: drain() writes what is left.
    this.timer.unref?.();
  }
}
