// What must hold after a database outage under load, whatever its kind
// (connections reset, network partition, server crash and restart).
import { expect } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import { eventually } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import type { Answer } from '../helpers/load.js';

const UNAVAILABLE = { status: 'error', message: 'service temporarily unavailable' };
const OUTCOME_UNKNOWN = { status: 'error', message: expect.stringMatching(/could not be recorded and may have been charged/) };

export async function expectNothingLostOrDoubled(opts: {
  answers: Answer[];
  /** A view of the database that did not go through the outage's path. */
  direct: Store;
  databaseUrl: string;
  accountId: string;
  credits: number;
}): Promise<void> {
  const { answers, direct, accountId } = opts;
  // Every caller got a well-formed JSON answer: a verification, a clean 503,
  // or (the bank said yes, the store broke while recording it) a 500.
  expect(answers.filter((a) => a.problem)).toEqual([]);
  for (const a of answers) {
    if (a.status === 200) expect(a.body).toMatchObject({ status: 'success' });
    else if (a.status === 500) expect(a.body).toEqual(OUTCOME_UNKNOWN);
    else expect({ status: a.status, body: a.body }).toEqual({ status: 503, body: UNAVAILABLE });
  }

  // Holds stranded by the outage are settled or released by the running process.
  await eventually(async () => (await direct.listHolds(accountId)).length === 0, 20_000);
  const after = (await direct.getAccount(accountId))!;
  const successes = answers.filter((a) => a.status === 200).length;
  const unknown = answers.filter((a) => a.status === 500).length;
  // Every success a caller saw was charged once; only a 500 may hide a
  // charge whose commit reached the server just before the connection
  // died. A 503 never does: it is always safe to retry.
  expect(after.usage).toBeGreaterThanOrEqual(successes);
  expect(after.usage).toBeLessThanOrEqual(successes + unknown);
  expect(after.credits + after.usage).toBe(opts.credits);
  expect(after.held).toBe(0);

  const doctor = await runDoctor(opts.databaseUrl);
  expect(doctor).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
}
