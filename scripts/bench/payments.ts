// `--payments`: A+pay, scenario A where every verification names a pending
// payment request (docs/payments.md) that its slip pays, beside A on the same
// database in the same rounds. Each bench account registers one PromptPay
// receiver; before the measured run (not measured) the requests are made
// through the public API, as a shop makes them, and each slip pays its own:
// the request's receiver, its amount, and a transfer time inside its window
// (what `slipgate sandbox qr --pays` pins). Only answers whose request was
// paid count as successes of A+pay: any other answer makes a failed run.
import { randomBytes } from 'node:crypto';
import { ReceiverService } from '../../src/domain/receivers/operations.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BenchDatabase } from './engines.js';
import type { RunExtras } from './extras.js';
import type { LoadResult } from './load.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';

/** The PromptPay target (a mobile number) every bench account registers for its requests, under the name its bank prints. */
export const PAY_RECEIVER = { promptPay: '0812345678', nameEn: 'BENCH NOODLE SHOP' };
const REQUESTS_PATH = '/api/v1/payment-requests';
/** Why a verified slip did not pay (docs/payments.md), counted to say what went wrong. */
const REASONS = ['amount_mismatch', 'wrong_receiver', 'transferred_before_request', 'expired', 'already_paid', 'slip_already_used', 'cancelled'] as const;
/** A paid answer: `paymentRequest` ends the body, with no `reason` after its status (a refusal carries one); and each reason. */
export const PAYMENT_MARKS: Record<string, string> = { paid: '"status":"paid"}}', ...Object.fromEntries(REASONS.map((r) => [r, `"reason":"${r}"`])) };
/** Requests made per expected request of the run: A+pay is slower than A, so this leaves room. */
const POOL_MARGIN = 1.5;
/** Requests/s assumed when no A of this engine has run yet. */
const FALLBACK_RATE = 3000;

export interface PendingRequest {
  apiKey: string;
  id: string;
  amount: number;
}

/** What A+pay's row carries besides A's figures. */
export interface PaymentFigures {
  /** Answers with `paymentRequest.status` "paid". */
  paid: number;
  /** Every other answer, and requests never answered: any makes the run a failed one. */
  notPaid: number;
  /** Requests sent after the pending requests made for the run ran out (each pays nothing). */
  ranOut: number;
  /** Verified slips that did not pay, by the answer's reason (only those seen). */
  reasons: Record<string, number>;
}

/** A+pay under --payments, or undefined. */
export function paymentVariant(run: BenchRun): Scenario | undefined {
  if (!run.args.payments) return undefined;
  return { ...run.scenarios.A, id: 'A+pay', title: 'as A, every verification paying a pending payment request', payments: true };
}

/** Registers PAY_RECEIVER on each account of `db` that has no receiver yet (then it is the one its requests name). */
export async function registerPayReceivers(db: BenchDatabase): Promise<void> {
  const store = await openStore(db.url);
  try {
    const receivers = new ReceiverService(store);
    const accounts = await store.listAccounts({ limit: 1000 });
    for (const account of accounts.items) {
      if ((await store.listReceivers(account.id)).length === 0) await receivers.add({ accountId: account.id, ...PAY_RECEIVER, label: 'bench' });
    }
  } finally {
    await store.close();
  }
}

/** `count` pending requests through `POST /api/v1/payment-requests`, the keys taken in turn; throws on any answer but 201. */
export async function createPendingRequests(url: string, keys: string[], count: number, inFlight = 16): Promise<PendingRequest[]> {
  // References are unique per account: a tag per pool keeps every round's apart.
  const tag = randomBytes(4).toString('hex');
  const made: PendingRequest[] = new Array(count);
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const i = next++;
      const apiKey = keys[i % keys.length]!;
      const body = { amount: (100 + (i % 1000) / 100).toFixed(2), reference: `bench-${tag}-${i}`, expiresInMinutes: 1440 };
      const res = await fetch(url + REQUESTS_PATH, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`creating a payment request answered ${res.status}: ${text.slice(0, 300)}`);
      const { data } = JSON.parse(text) as { data: { id: string; amount: number; status: string } };
      if (data.status !== 'pending') throw new Error(`a new payment request is ${data.status}, not pending`);
      made[i] = { apiKey, id: data.id, amount: data.amount };
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  return made;
}

/** A verify body that pays `request`: a sandbox slip to PAY_RECEIVER for its amount, transferred at `paidAt`. */
export function payingBody(request: PendingRequest, paidAt: Date): string {
  // Under the receiver's name (the rules want it to agree with the digits), cut as a bank cuts it to fit the sandbox reference.
  const receiverName = PAY_RECEIVER.nameEn.slice(0, 12);
  const qrcode = sandboxQr({ amount: request.amount, details: { receiverProxy: { type: 'MSISDN', digits: PAY_RECEIVER.promptPay }, receiverName, paidAt } });
  return JSON.stringify({ qrcode, paymentRequest: request.id });
}

/**
 * The requests in turn, each with its account's key and a slip made now (the
 * bank prints the minute; a slip may read up to 2 minutes before its request
 * was made, so every request of the pool is inside its window). Past the
 * end, the last request again with a new slip: an answer that pays nothing.
 */
export function payingBodies(requests: PendingRequest[]): { next: () => { apiKey: string; body: string }; ranOut: () => number } {
  const paidAt = new Date();
  const bodies = requests.map((r) => ({ apiKey: r.apiKey, body: payingBody(r, paidAt) }));
  let i = 0;
  let ranOut = 0;
  return {
    next: () => {
      if (i < bodies.length) return bodies[i++]!;
      ranOut++;
      const last = requests.at(-1)!;
      return { apiKey: last.apiKey, body: payingBody(last, paidAt) };
    },
    ranOut: () => ranOut,
  };
}

/** Requests for one run: the fastest A of this tree on `engine` so far (or FALLBACK_RATE), over warm-up and run, with POOL_MARGIN. */
export function poolSize(run: BenchRun, scenario: Scenario, engine: string): number {
  const rates = run.report.rows.filter((r) => r.scenario.id === 'A' && r.engine === engine && !r.revision && !r.profiled).map((r) => r.load.successes / r.load.durationSec);
  const rate = rates.length > 0 ? Math.max(...rates) : FALLBACK_RATE;
  return Math.ceil(rate * (scenario.durationSec + scenario.warmupSec) * POOL_MARGIN) + 100;
}

/** A+pay's figures from its measured run: successes are the paid answers only, every other answer a failure. */
export function paidLoad(result: LoadResult, ranOut: number): { load: LoadResult; payments: PaymentFigures } {
  const paid = result.marked.paid ?? 0;
  const verifiedUnpaid = result.successes - paid;
  return {
    load: { ...result, successes: paid, failures: result.failures + verifiedUnpaid },
    payments: { paid, notPaid: verifiedUnpaid + result.failures + result.errors, ranOut, reasons: Object.fromEntries(REASONS.map((r) => [r, result.marked[r] ?? 0]).filter(([, n]) => n !== 0)) },
  };
}

/** measure()'s part for A+pay: the receivers before slipgate starts, the requests once it is ready, the paid count after the run. */
export async function paymentExtras(run: BenchRun, scenario: Scenario, engine: string, db: BenchDatabase, keys: string[]): Promise<RunExtras> {
  await registerPayReceivers(db);
  let bodies: ReturnType<typeof payingBodies> | undefined;
  return {
    ready: async (url) => {
      const count = poolSize(run, scenario, engine);
      run.say(`${scenario.id}/${engine}: making ${count.toLocaleString('en-US')} pending payment requests through the API (not measured)`);
      bodies = payingBodies(await createPendingRequests(url, keys, count));
      return { nextKeyed: bodies.next, marks: PAYMENT_MARKS };
    },
    measured: async (result) => {
      const figures = paidLoad(result, bodies?.ranOut() ?? 0);
      const { paid, notPaid, ranOut } = figures.payments;
      run.say(`${scenario.id}/${engine}: ${paid} requests paid, ${notPaid} answers did not pay${notPaid > 0 ? ' (a failed run)' : ''}${ranOut > 0 ? `; the pending requests ran out ${ranOut} requests before the end` : ''}`);
      return figures;
    },
  };
}
