// The process's budget of picture bytes (src/http/picture-budget.ts): first
// come, first served; a picture larger than the budget still passes alone;
// one that waits too long is told so and frees its place; one whose client
// hung up leaves at once; one address holds at most its share.
import { describe, expect, it } from 'vitest';
import { PictureBudget } from '../../src/http/picture-budget.js';

describe('PictureBudget', () => {
  it('lets pictures in while their bytes fit, and the next one in the order they came as room frees', async () => {
    const budget = new PictureBudget(100);
    const first = await budget.take(60);
    const order: string[] = [];
    const big = budget.take(50).then((r) => (order.push('big'), r));
    // Would fit beside the first, but the larger one came before it.
    const small = budget.take(10).then((r) => (order.push('small'), r));
    await Promise.resolve();
    expect(budget.waiting).toBe(2);
    first!();
    const [b, s] = await Promise.all([big, small]);
    expect(order).toEqual(['big', 'small']);
    expect(budget.waiting).toBe(0);
    b!();
    s!();
  });

  it('lets a picture larger than the whole budget in alone', async () => {
    const budget = new PictureBudget(100);
    const huge = await budget.take(1_000);
    expect(huge).toBeTypeOf('function');
    const next = budget.take(1);
    await Promise.resolve();
    expect(budget.waiting).toBe(1);
    huge!();
    expect(await next).toBeTypeOf('function');
  });

  it('answers null after the longest wait and lets the ones behind it in', async () => {
    const budget = new PictureBudget(100, 30);
    const held = await budget.take(100);
    const late = await budget.take(1);
    expect(late).toBeNull();
    expect(budget.waiting).toBe(0);
    held!();
    expect(await budget.take(100)).toBeTypeOf('function');
  });

  it('counts a release once, however often it is called', async () => {
    const budget = new PictureBudget(100);
    const a = await budget.take(100);
    a!();
    a!();
    const b = await budget.take(100);
    // Had the second call freed 100 more, this one would not wait.
    const c = budget.take(100);
    await Promise.resolve();
    expect(budget.waiting).toBe(1);
    b!();
    (await c)!();
  });

  it('drops a waiter whose client hung up: it never holds room, and the ones behind it move up', async () => {
    const budget = new PictureBudget(100);
    const held = await budget.take(100, 'a');
    const gone = new AbortController();
    const left = budget.take(100, 'b', gone.signal);
    const next = budget.take(100, 'c');
    await Promise.resolve();
    expect(budget.waiting).toBe(2);
    gone.abort();
    expect(await left).toBeNull();
    expect(budget.waiting).toBe(1);
    held!();
    (await next)!();
    expect(budget.held).toBe(0);
  });

  it('holds one address to a quarter of the budget (one larger picture alone), without holding up the others', async () => {
    const budget = new PictureBudget(100);
    const a1 = await budget.take(20, 'a');
    // 20 + 20 is past a's quarter: it waits, though the budget has room.
    const a2 = budget.take(20, 'a');
    await Promise.resolve();
    expect(budget.waiting).toBe(1);
    // Behind it, another address is let in at once.
    const b = await budget.take(60, 'b');
    expect(budget.held).toBe(80);
    a1!();
    (await a2)!();
    b!();
    expect(budget.held).toBe(0);
  });
});
