// `--rechecks`: A+recheck, scenario A beside 1,000 slips being re-checked
// (docs/payments.md#re-checks), on the same database in the same rounds: what
// keeping them costs A. Before the warm-up (not measured) the slips are sent
// through the public API with `"recheck": true`, each a sandbox slip its bank
// never knows (`not-found`), so every one stays pending and is asked again
// by the re-check passes during the run (15 s after it was sent, then with
// backoff), through the same bank pool as A's verifications. After the run
// they are ended in the store, so no later run pays for them.
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BenchDatabase } from './engines.js';
import type { RunExtras } from './extras.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';

/** Slips kept for re-checks beside A. */
const PENDING_RECHECKS = 1_000;
const VERIFY_PATH = '/api/v1/verify';

/** A+recheck under --rechecks, or undefined. */
export function recheckVariant(run: BenchRun): Scenario | undefined {
  if (!run.args.rechecks) return undefined;
  return { ...run.scenarios.A, id: 'A+recheck', title: `as A, beside ${PENDING_RECHECKS.toLocaleString('en-US')} slips being re-checked`, rechecks: true };
}

/** `count` slips kept for re-checks through `POST /api/v1/verify`, the keys taken in turn; throws on any answer but 202. */
async function keepSlips(url: string, keys: string[], count: number, inFlight = 16): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const apiKey = keys[next++ % keys.length]!;
      const body = JSON.stringify({ qrcode: sandboxQr({ amount: 100, outcome: 'not-found' }), recheck: true });
      const res = await fetch(url + VERIFY_PATH, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
      const text = await res.text();
      if (res.status !== 202) throw new Error(`keeping a slip for re-checks answered ${res.status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
}

/** Ends every open re-check of the bench accounts (unconfirmed), straight in the store; how many, and the attempts they had. */
async function endRechecks(db: BenchDatabase): Promise<{ ended: number; attempts: number }> {
  const store = await openStore(db.url);
  try {
    const done = { ended: 0, attempts: 0 };
    for (const account of (await store.listAccounts({ limit: 1000 })).items) {
      for (const r of await store.openRechecks({ accountId: account.id, limit: PENDING_RECHECKS })) {
        if (!(await store.finishRecheck(r.id, { outcome: 'unconfirmed', at: new Date() }))) continue;
        done.ended++;
        done.attempts += r.attempts;
      }
    }
    return done;
  } finally {
    await store.close();
  }
}

/** measure()'s part for A+recheck: the slips once slipgate is ready, ended after the run. */
export function recheckExtras(run: BenchRun, scenario: Scenario, engine: string, db: BenchDatabase, keys: string[]): RunExtras {
  return {
    ready: async (url) => {
      run.say(`${scenario.id}/${engine}: keeping ${PENDING_RECHECKS.toLocaleString('en-US')} slips for re-checks through the API (not measured)`);
      await keepSlips(url, keys, PENDING_RECHECKS);
      return {};
    },
    close: async () => {
      const { ended, attempts } = await endRechecks(db);
      run.say(`${scenario.id}/${engine}: ended ${ended.toLocaleString('en-US')} open re-checks after the run; the bank was asked again ${attempts.toLocaleString('en-US')} times for them`);
    },
  };
}
