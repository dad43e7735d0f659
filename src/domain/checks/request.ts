// Validation of the optional `checks` object of a verify request, by each
// check's own schema (checks/registry.ts). Anything unexpected is a bad
// request that names the problem, before any credit is held, so a typo never
// costs a verification without the check it asked for.
import { CHECK_NAMES } from './run.js';
import type { CheckParse } from './check.js';
import { CHECKS } from './registry.js';
import type { CheckRequest } from './types.js';

export type CheckRequestResult = { ok: true; checks: CheckRequest } | { ok: false; message: string };

export function parseCheckRequest(value: unknown): CheckRequestResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'checks must be a JSON object, e.g. {"duplicate": true, "amount": 250.00}' };
  }
  const input = value as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(CHECK_NAMES as readonly string[]).includes(k));
  if (unknown.length > 0) {
    return { ok: false, message: `unknown check ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known checks: ${CHECK_NAMES.join(', ')}` };
  }
  let checks: CheckRequest = {};
  for (const check of CHECKS) {
    if (input[check.name] === undefined) continue;
    const parsed = check.request.safeParse(input[check.name]);
    const kept: CheckParse = parsed.success ? check.keep(parsed.data as never) : { ok: false, message: parsed.error.issues[0]?.message ?? `checks.${check.name} is invalid` };
    if (!kept.ok) return kept;
    checks = { ...checks, ...kept.request };
  }
  return { ok: true, checks };
}
