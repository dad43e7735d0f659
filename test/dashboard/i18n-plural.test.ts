// The English strings count in the singular for one: "1 success", not "1 successes".
import { describe, expect, it } from 'vitest';
import { en } from '../../dashboard/src/i18n/en.js';

describe('dashboard English counts', () => {
  it('the usage summary says 1 success, 1 failure, 1 credit', () => {
    expect(en.chart.summary('1 Nov', '2 Nov', '1', '1', '1', { ok: 1, bad: 1, spent: 1 })).toBe('From 1 Nov to 2 Nov: 1 success, 1 failure, 1 credit spent.');
    expect(en.chart.summary('1 Nov', '2 Nov', '3', '0', '2', { ok: 3, bad: 0, spent: 2 })).toBe('From 1 Nov to 2 Nov: 3 successes, 0 failures, 2 credits spent.');
  });
});
