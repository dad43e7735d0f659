// A per-LINE-user limit on slips (LINE_EVENTS_PER_USER_PER_MIN): one
// customer's flood cannot spend the shop's credits or the picture readers.
// A fixed one-minute window per user, in this process; the first refused
// event of a window is answered politely, the rest silently.

export type UserLimitVerdict = 'allowed' | 'refused_tell' | 'refused_quiet';

const WINDOW_MS = 60_000;
/** Users remembered at most; the oldest windows are dropped first (they are past anyway, or nearly). */
const MAX_USERS = 100_000;

export class LineUserLimit {
  private readonly windows = new Map<string, { start: number; count: number; told: boolean }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(userKey: string): UserLimitVerdict {
    if (this.perMinute <= 0) return 'allowed';
    const now = this.now();
    let w = this.windows.get(userKey);
    if (!w || now - w.start >= WINDOW_MS) {
      this.windows.delete(userKey);
      if (this.windows.size >= MAX_USERS) this.windows.delete(this.windows.keys().next().value as string);
      w = { start: now, count: 0, told: false };
      this.windows.set(userKey, w);
    }
    w.count++;
    if (w.count <= this.perMinute) return 'allowed';
    if (w.told) return 'refused_quiet';
    w.told = true;
    return 'refused_tell';
  }
}
