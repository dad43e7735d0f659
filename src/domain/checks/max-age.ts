// "Is the slip recent?": refuses old slips shown again.
import { z } from 'zod';
import { defineCheck } from './check.js';

const MAX_AGE_MINUTES = 366 * 24 * 60;
const MESSAGE = `checks.maxAgeMinutes must be a number of minutes above 0 and at most ${MAX_AGE_MINUTES}`;

export const maxAgeCheck = defineCheck({
  name: 'maxAgeMinutes',
  request: z
    .number({ error: MESSAGE })
    .gt(0, MESSAGE)
    .max(MAX_AGE_MINUTES, MESSAGE)
    .meta({ description: 'Pass only if the transaction is at most this many minutes old.' }),
  keep: (maxAgeMinutes: number) => ({ ok: true, request: { maxAgeMinutes } }),
  evaluate: (req, slip, ctx) => {
    if (req.maxAgeMinutes === undefined) return undefined;
    const ageMs = ctx.now.getTime() - slip.timestamp * 1000;
    return { passed: ageMs <= req.maxAgeMinutes * 60_000, maxAgeMinutes: req.maxAgeMinutes, ageMinutes: Math.floor(ageMs / 60_000) };
  },
});
