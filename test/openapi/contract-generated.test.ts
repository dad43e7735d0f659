// openapi.json's Checks schema and the client's Checks type are generated
// from the check registry (scripts/contract.ts): the committed files must be
// exactly what the script prints now, so a check changed in one place is
// changed everywhere (run `npm run contract`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/domain/checks/run.js';
import { CLIENT_CHECKS_FILE, OPENAPI_FILE, checksSchema, renderClientChecks, renderOpenapi } from '../../scripts/contract.js';

describe('the request contract generated from the check registry', () => {
  it('openapi.json holds the Checks schema the registry prints', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(committed, 'openapi.json is stale: run npm run contract').toBe(renderOpenapi(committed));
  });

  it('the client type is the one the registry prints', () => {
    expect(readFileSync(CLIENT_CHECKS_FILE, 'utf8'), 'src/client/checks.generated.ts is stale: run npm run contract').toBe(renderClientChecks());
  });

  it('names every registered check, and nothing else', () => {
    expect(Object.keys(checksSchema().properties as object)).toEqual([...CHECK_NAMES]);
    expect(checksSchema().additionalProperties).toBe(false);
  });
});
