// OAuth2 access tokens for one bank domain: cached until shortly before they
// expire, fetched once for any number of concurrent callers, and dropped when
// the bank says it no longer accepts them (HTTP 401).
import type { AdapterFailure } from './outcomes.js';

export type TokenOutcome =
  | { ok: true; token: string; lifetimeMs: number }
  | { ok: false; failure: AdapterFailure };

export type TokenWait = { ok: true; token: string } | { ok: false; failure: AdapterFailure } | { ok: false; aborted: true };

/** Refresh this long before expiry: 10 % of the lifetime, at most 60 s. */
function refreshMarginMs(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs * 0.1);
}

export class TokenCache {
  private current: { token: string; refreshAt: number } | undefined;
  private inFlight: Promise<TokenOutcome> | undefined;

  constructor(
    /**
     * Fetches a new token. It runs on its own budget, not a caller's signal:
     * callers share it, and one caller giving up must not fail the others.
     */
    private readonly fetchToken: () => Promise<TokenOutcome>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(signal: AbortSignal): Promise<TokenWait> {
    if (this.current && this.now() < this.current.refreshAt) return { ok: true, token: this.current.token };
    const outcome = await untilAborted(this.refresh(), signal);
    if (outcome === ABORTED) return { ok: false, aborted: true };
    return outcome.ok ? { ok: true, token: outcome.token } : outcome;
  }

  /** The bank refused `token`; forget it unless a newer one already replaced it. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private refresh(): Promise<TokenOutcome> {
    this.inFlight ??= this.fetchToken()
      .then((outcome) => {
        if (outcome.ok) {
          this.current = { token: outcome.token, refreshAt: this.now() + outcome.lifetimeMs - refreshMarginMs(outcome.lifetimeMs) };
        }
        return outcome;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}

const ABORTED = Symbol('aborted');

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** expires_in / expiresIn in seconds, as a number or numeric text. */
export function lifetimeFromSeconds(value: unknown, fallbackMs: number): number {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : fallbackMs;
}
