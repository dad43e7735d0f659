// The event loop's saturation as the webhook worker reads it: a loop kept
// busy by synchronous work for a whole window reads saturated, an idle one
// does not, and a reading is kept until the window has passed.
import { describe, expect, it } from 'vitest';
import { loopSaturation } from '../src/loop-saturation.js';

const busyFor = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('loopSaturation', () => {
  it('reads saturated after a window of work on the loop, not after an idle one', async () => {
    const saturated = loopSaturation({ threshold: 0.9, windowMs: 200 });
    busyFor(300);
    expect(saturated()).toBe(true);
    // Within the window the reading is kept, whatever happens meanwhile.
    await idleFor(50);
    expect(saturated()).toBe(true);
    await idleFor(300);
    expect(saturated()).toBe(false);
  });
});
