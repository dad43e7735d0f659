// A wait the delivery worker can end early: the pause between polls (ended
// by a new event or a freed slot) and the gap between two claims (ended by
// stop()). A wake-up that comes while nobody waits ends the next wait at
// once when asked to, so an event written between two waits is not left for
// the next poll.
export class Waiter {
  private end: (() => void) | null = null;
  private early = false;

  /** Resolves after `ms`, or when woken. The timer never keeps the process alive. */
  wait(ms: number): Promise<void> {
    if (this.early) {
      this.early = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.end = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      this.end = done;
    });
  }

  /** Ends the wait under way; with `remember`, a wake-up with none under way ends the next one at once. */
  wake(remember: boolean): void {
    if (this.end) this.end();
    else if (remember) this.early = true;
  }
}
