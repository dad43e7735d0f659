// Refused LINE webhook requests are logged, but boundedly: anyone can call
// the public route, and a WARN line per refusal lets a flood fill the log
// disk at the speed of the network. So, per client address and clock minute
// (per process), as keys/failed-auth-brake.ts bounds refused keys:
//
//   - the first refusal of an address in a minute is one WARN line, carrying
//     how many of its refusals the minute before were not logged one by one;
//   - the others are counted in memory only;
//   - at most MAX_ADDRESSES are tracked a minute; refusals from further
//     addresses are counted together and told by the next line written.
import type { Logger } from '../ports/logger.js';

const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

export type WebhookRefusal = 'unsigned' | 'unknown_channel' | 'bad_signature';

export interface RefusedWebhook {
  address: string;
  channelId: string;
  refused: WebhookRefusal;
  requestId: string;
}

export class WebhookRefusalLog {
  private windowIndex = -1;
  /** Refusals of each address this minute that were not logged one by one. */
  private counts = new Map<string, number>();
  /** The previous minute's unlogged counts: told by the address's next line. */
  private carried = new Map<string, number>();
  private overflow = 0;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  refused(r: RefusedWebhook): void {
    this.roll();
    const count = this.counts.get(r.address);
    if (count !== undefined) {
      this.counts.set(r.address, count + 1);
      return;
    }
    if (this.counts.size >= MAX_ADDRESSES) {
      this.overflow++;
      return;
    }
    this.counts.set(r.address, 0);
    const earlier = this.carried.get(r.address) ?? 0;
    const overflow = this.overflow;
    this.overflow = 0;
    this.logger.warn(
      { channelId: r.channelId, refused: r.refused, requestId: r.requestId, ...(earlier > 0 ? { notLoggedLastMinute: earlier } : {}), ...(overflow > 0 ? { notLoggedOtherAddresses: overflow } : {}) },
      'LINE webhook refused',
    );
  }

  private roll(): void {
    const index = Math.floor(this.now() / WINDOW_MS);
    if (index === this.windowIndex) return;
    const next = new Map<string, number>();
    if (index === this.windowIndex + 1) for (const [address, n] of this.counts) if (n > 0) next.set(address, n);
    this.carried = next;
    this.counts = new Map();
    this.windowIndex = index;
  }
}
