// The bench's --payments setup against a real slipgate that asks the bench's
// own bank (the KBank simulator): every bench account gets the PromptPay
// receiver, the pending requests are made through the public API, and each
// body the bench sends pays its request with its account's key; a body sent
// after the requests ran out pays nothing, and the texts the bench counts
// are the ones the answers really hold. Then the flags.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { bankSimulator, startSimulatedBank, type SimulatedBank } from '../../src/upstream/simulator/simulated-bank.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import type { LoadResult } from '../../scripts/bench/load.js';
import { createPendingRequests, paidLoad, PAYMENT_MARKS, payingBodies, PAY_RECEIVER, registerPayReceivers } from '../../scripts/bench/payments.js';
import { startApp, type TestApp } from '../helpers/app.js';

let bank: SimulatedBank;
let app: TestApp;
let db: BenchDatabase;

beforeAll(async () => {
  bank = await startSimulatedBank({ provider: 'kbank', port: 0 });
  const { id, secret } = bankSimulator('kbank').credentials;
  const upstreams = [{ name: 'kbank-sim', provider: 'kbank', baseUrl: bank.url, clientId: id, clientSecret: secret }];
  app = await startApp({ upstream: null, env: { UPSTREAMS: JSON.stringify(upstreams) } });
  db = { engine: 'sqlite', url: app.databaseUrl, description: 'test', drop: async () => {} };
});
afterAll(async () => {
  await app?.stop();
  await bank?.close();
});

async function send(apiKey: string, body: string): Promise<string> {
  const res = await fetch(app.publicUrl + VERIFY_PATH, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
  expect(res.status).toBe(200);
  return res.text();
}

const count = (texts: string[], mark: string) => texts.filter((t) => t.includes(mark)).length;

describe('bench --payments', () => {
  it('makes pending requests through the API whose bodies, sent with their own keys, each pay theirs; past the end a body pays nothing', { timeout: 30_000 }, async () => {
    const shops = [await app.account(100), await app.account(100)];
    await registerPayReceivers(db);
    // Set up again (every A+pay run does): still one receiver per account, the PromptPay one.
    await registerPayReceivers(db);
    for (const shop of shops) expect((await app.store.listReceivers(shop.accountId)).map((r) => r.number)).toEqual([PAY_RECEIVER.promptPay]);

    const requests = await createPendingRequests(app.publicUrl, shops.map((s) => s.apiKey), 5, 2);
    expect(requests.map((r) => r.apiKey)).toEqual([0, 1, 0, 1, 0].map((i) => shops[i]!.apiKey));
    expect(new Set(requests.map((r) => r.id)).size).toBe(5);

    const bodies = payingBodies(requests);
    const answers: string[] = [];
    for (const request of requests) {
      const { apiKey, body } = bodies.next();
      expect(apiKey).toBe(request.apiKey);
      expect(JSON.parse(body).paymentRequest).toBe(request.id);
      answers.push(await send(apiKey, body));
    }
    for (const [i, answer] of answers.entries()) expect(JSON.parse(answer).paymentRequest).toEqual({ id: requests[i]!.id, status: 'paid' });
    expect(count(answers, PAYMENT_MARKS.paid!)).toBe(5);

    const after = bodies.next();
    const unpaid = await send(after.apiKey, after.body);
    expect(JSON.parse(unpaid).paymentRequest).toMatchObject({ id: requests.at(-1)!.id, status: 'paid', reason: 'already_paid' });
    expect(unpaid).not.toContain(PAYMENT_MARKS.paid);
    expect(unpaid).toContain(PAYMENT_MARKS.already_paid);
    expect(bodies.ranOut()).toBe(1);
  });

  it('counts only the paid answers as successes, and every other answer as not paid', () => {
    const result = { successes: 10, failures: 2, errors: 1, marked: { paid: 7, already_paid: 3, expired: 0 } } as unknown as LoadResult;
    const { load, payments } = paidLoad(result, 3);
    expect(load).toMatchObject({ successes: 7, failures: 5, errors: 1 });
    expect(payments).toEqual({ paid: 7, notPaid: 6, ranOut: 3, reasons: { already_paid: 3 } });
  });

  it('takes --payments, --webhooks and --rechecks beside A, and refuses them without A or --payments with a receiver policy', async () => {
    const { parseArgs } = await import('../../scripts/bench/args.js');
    expect(parseArgs(['--scenario', 'A,D', '--payments', '--webhooks', '--rechecks'])).toMatchObject({ payments: true, webhooks: true, rechecks: true });
    expect(parseArgs([])).toMatchObject({ payments: false, webhooks: false, rechecks: false });
    // The refusals exit the process: ask a child.
    const refused = (...argv: string[]) => spawnSync(process.execPath, ['--import', 'tsx', '-e', `import('./scripts/bench/args.ts').then((m) => m.parseArgs(${JSON.stringify(argv)}))`], { encoding: 'utf8' });
    for (const [argv, message] of [
      [['--scenario', 'D', '--payments'], '--payments runs A again'],
      [['--scenario', 'D', '--webhooks'], '--webhooks runs A again'],
      [['--scenario', 'D', '--rechecks'], '--rechecks runs A again'],
      [['--payments', '--receiver-policy', 'require'], 'run them separately'],
    ] as const) {
      const child = refused(...argv);
      expect(child.status).toBe(2);
      expect(child.stderr).toContain(message);
    }
  });
});
