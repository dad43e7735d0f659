// What a VerificationService is built from; compose.ts wires the real ones.
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { Upstream } from '../ports/upstream.js';
import type { ImageDecoder } from '../ports/images.js';
import type { KeyResolver } from '../keys/lookup.js';
import type { ReceiverDirectory } from '../receivers/directory.js';
import type { FailedAuthBrake } from '../keys/failed-auth-brake.js';
import type { NewWebhookDelivery, WebhookEventType } from '../webhooks/types.js';
import type { RecheckSettings } from '../rechecks/start.js';

export interface VerificationDeps {
  store: Store;
  upstream: Upstream;
  /** Whole budget for the network call (10 s, docs/contract.md#limits). */
  timeoutMs: number;
  logger: Logger;
  now?: () => Date;
  newId: () => string;
  /** Resolves API keys (and caches them; see keys/lookup.ts). */
  keys: KeyResolver;
  /** Each account's receiver policy and receivers, cached; without it they are read for every verification. */
  receivers?: ReceiverDirectory;
  /** Verifications one account may have at the network at once (busy beyond). */
  maxInFlightPerAccount?: number;
  /** The serving process's lease, recorded on each hold (see lease.ts). */
  instanceId?: () => string | null;
  /** Reads the slip QR of `image` bodies (the worker pool); without it they are refused. */
  images?: ImageDecoder;
  /**
   * Pictures one account may have waiting for or on a decoder thread (per
   * process); more get 429 before they queue, so one key's flood cannot fill
   * the image pool's queue that every merchant shares.
   */
  maxPicturesPerAccount?: number;
  /** Re-checks of slips the bank does not know yet (domain/rechecks); without them such a slip is answered as the bank said. */
  rechecks?: RecheckSettings;
  /** Bounds what refused authentications from one address cost (failed-auth-brake.ts); without it each is recorded. */
  authBrake?: FailedAuthBrake;
  /** account.credits_low (credits-low.ts): told the balance each hold left; absent: never announced from the verify path. */
  creditsLow?: { afterHold(accountId: string, creditsLeft: number): Promise<void> };
  /** Webhook listeners (a per-account cache); absent: no events are written. */
  webhooks?: {
    endpointsFor(accountId: string, type: WebhookEventType): Promise<string[]>;
    /** The lease a settle writes its deliveries under, so this process's worker sends them without a claim; none: left for a claim. */
    lease?(): { claim: string; until: Date } | undefined;
    /** Called with the deliveries a settle wrote, once durable, so the worker sends them now rather than at its next poll. */
    written?(deliveries: readonly NewWebhookDelivery[]): void;
  };
}
