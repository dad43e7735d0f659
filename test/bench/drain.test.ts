// Scenario W's backlog against a real slipgate: with the receiver held, the
// verifications' events pile up pending in the store while the worker's
// first attempts wait for their answers; once the receiver opens, every one
// of them arrives once, signed with its account's secret, and the store
// records each delivery as delivered. No timing is asserted: that is the
// bench's to measure.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../scripts/bench/args.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import { buildBacklog, deliveryStates, drainBacklog, HOLD_ENV } from '../../scripts/bench/drain.js';
import { addEndpoints, removeEndpoints, startDeliveryReceiver, type DeliveryReceiver } from '../../scripts/bench/webhooks.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';

const BACKLOG = 300;

let app: TestApp;
let receiver: DeliveryReceiver;

// W's slipgate settings: a held attempt waits for its answer instead of timing out.
beforeAll(async () => {
  app = await startApp({ env: HOLD_ENV });
  receiver = await startDeliveryReceiver({ held: true });
});
afterAll(async () => {
  // Answers anything still held, so the worker stops at once.
  receiver?.release();
  await app?.stop();
  await receiver?.close();
});

describe('bench W: a webhook backlog built behind a held receiver, then drained', () => {
  it('keeps the events pending while held, then delivers each once with a good signature and the store marks all delivered', { timeout: 60_000 }, async () => {
    const shops = [await app.account(1000), await app.account(1000), await app.account(1000)];
    const db: BenchDatabase = { engine: 'sqlite', url: app.databaseUrl, description: 'test', drop: async () => {} };
    const endpoints = await addEndpoints(db, receiver);
    expect(endpoints).toHaveLength(shops.length);

    const built = await buildBacklog(app.publicUrl, shops.map((s) => s.apiKey), BACKLOG);
    expect(built).toMatchObject({ successes: BACKLOG, failures: 0, errors: 0 });
    // The worker's first attempts reach the receiver and wait there; it claims no more while they do.
    await eventually(async () => receiver.parked > 0);
    expect(receiver.parked).toBeLessThan(BACKLOG);
    expect(receiver.delivered).toBe(0);
    expect(await deliveryStates(app.databaseUrl, endpoints)).toEqual({ pending: BACKLOG });

    const held = receiver.parked;
    const drained = await drainBacklog(receiver, BACKLOG);
    expect(drained).toMatchObject({ held, delivered: BACKLOG, duplicates: 0, badSignatures: 0 });
    expect(receiver.lagsMs).toHaveLength(BACKLOG);
    expect(await deliveryStates(app.databaseUrl, endpoints)).toEqual({ delivered: BACKLOG });

    await removeEndpoints(db, endpoints);
  });

  it('takes --webhook-backlog with --webhooks, and refuses it without them or with a size that is not a whole number', () => {
    expect(parseArgs(['--scenario', 'A', '--webhooks', '--webhook-backlog', '500'])).toMatchObject({ webhooks: true, webhookBacklog: 500 });
    expect(parseArgs(['--webhooks'])).toMatchObject({ webhookBacklog: undefined });
    // The refusals exit the process: ask a child.
    const refused = (...argv: string[]) => spawnSync(process.execPath, ['--import', 'tsx', '-e', `import('./scripts/bench/args.ts').then((m) => m.parseArgs(${JSON.stringify(argv)}))`], { encoding: 'utf8' });
    for (const [argv, message] of [
      [['--webhook-backlog', '500'], 'add --webhooks'],
      [['--webhooks', '--webhook-backlog', '1.5'], '--webhook-backlog must be a whole number'],
      [['--webhooks', '--webhook-backlog', '0'], '--webhook-backlog must be a whole number'],
    ] as const) {
      const child = refused(...argv);
      expect(child.status).toBe(2);
      expect(child.stderr).toContain(message);
    }
  });
});
