// The brake's 429s, answered late. The brake (src/domain/keys/failed-auth-brake.ts)
// bounds what a flood of bad keys writes; this bounds what it costs in CPU.
// A flooding client that waits for each answer before sending the next one
// (every HTTP client library, and the usual flooding tools) is slowed to its
// connection count per delay: 50 connections at 2 s send 25 requests a
// second instead of thousands, and each of those still costs the server a
// full request's work. Answered at once, a 429 invites the next request at
// once, so a flood on the same cores takes every cycle the merchants leave.
//
// Holding an answer costs its socket and a few objects, so at most
// TARPIT_MAX_HELD are held per process; past that a 429 is answered at once
// (a client opening thousands of connections is the proxy's and the
// firewall's to stop: deploy/nginx/slipgate.conf's limit_req). The delay is
// constant, so the held answers are due in the order they came, and one
// timer serves them.
import type { Response } from 'express';

/** Answers held at most at once (per process); beyond, answered at once. */
const TARPIT_MAX_HELD = 1024;

interface Held {
  res: Response;
  send: () => void;
  due: number;
}

export class Tarpit {
  private readonly queue: Held[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private released = false;

  /** `delayMs` 0: every answer at once. */
  constructor(
    private readonly delayMs: number,
    private readonly maxHeld = TARPIT_MAX_HELD,
  ) {}

  /** Answers held right now. */
  get held(): number {
    return this.queue.length;
  }

  /** Sends the answer after the delay, or now when the delay is 0, the cap is reached or the server is stopping. */
  answer(res: Response, send: () => void): void {
    if (this.delayMs <= 0 || this.released || this.queue.length >= this.maxHeld) {
      send();
      return;
    }
    this.queue.push({ res, send, due: Date.now() + this.delayMs });
    this.schedule();
  }

  /** The server is stopping: every held answer now, and every later one at once, so no connection waits on a delay. */
  release(): void {
    this.released = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sendDue(Number.POSITIVE_INFINITY);
  }

  private schedule(): void {
    const first = this.queue[0];
    if (this.timer || !first) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.sendDue(Date.now());
        this.schedule();
      },
      Math.max(0, first.due - Date.now()),
    );
  }

  private sendDue(now: number): void {
    while (this.queue.length > 0 && this.queue[0]!.due <= now) {
      const held = this.queue.shift()!;
      // A client that hung up is not written to (nothing would arrive, and nothing is logged for it).
      if (!held.res.destroyed) held.send();
    }
  }
}
