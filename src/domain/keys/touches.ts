// Records when an API key was last used (lastUsedAt), without a write per verification.
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';

/** lastUsedAt is for people, so one write a minute per key is plenty. */
const TOUCH_INTERVAL_MS = 60_000;

export class KeyTouches {
  private readonly lastTouch = new Map<string, number>();

  constructor(private readonly deps: { store: Store; logger: Logger }) {}

  /** Fire and forget: a failed write is logged, never the verification's problem. */
  touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastTouch.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouch.set(keyId, now);
    this.deps.store.touchApiKey(keyId, new Date(now)).catch((err: unknown) => {
      this.deps.logger.warn({ err, keyId }, 'could not record key use');
    });
  }
}
