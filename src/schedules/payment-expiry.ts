// The server's expiry of payment requests (domain/payments/expiry.ts): every
// PAYMENT_EXPIRY_INTERVAL_MS, on one instance at a time, chosen like
// retention's (schedules/retention.ts): the live lease with the smallest id.
// Two passes at once (a paused process) are harmless: a request is marked
// expired, and its event written, by one conditional write only.
import type { Logger } from 'pino';
import type { Store } from '../domain/ports/store.js';
import { expireDuePayments } from '../domain/payments/expiry.js';
import type { InstanceLease } from './lease.js';
import { leasedPass, type LeasedPass } from './leased-pass.js';

/** How often pending requests are looked at: a request is marked within this after its expiresAt. */
const PAYMENT_EXPIRY_INTERVAL_MS = 15_000;

export interface PaymentExpiryOptions {
  lease: InstanceLease;
  logger: Logger;
  endpointsFor(accountId: string): Promise<readonly string[]>;
  /** Called after a pass wrote events, so the webhook worker need not wait for its poll. */
  written?(): void;
  intervalMs?: number;
  now?: () => Date;
}

export type PaymentExpirySchedule = LeasedPass<number>;

export function schedulePaymentExpiry(store: Store, opts: PaymentExpiryOptions): PaymentExpirySchedule {
  const options = { ...opts, intervalMs: opts.intervalMs ?? PAYMENT_EXPIRY_INTERVAL_MS, failure: 'payment expiry pass failed; it runs again at the next interval', now: opts.now ?? (() => new Date()) };
  return leasedPass(store, options, async (at, stopped) => {
    const marked = await expireDuePayments({ store, endpointsFor: opts.endpointsFor, now: at, stopped });
    if (marked > 0) {
      opts.logger.info({ expired: marked }, 'payment requests expired');
      opts.written?.();
    }
    return marked;
  });
}
