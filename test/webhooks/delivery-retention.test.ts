// The server's retention pass deletes finished webhook deliveries after
// WEBHOOK_DELIVERY_RETENTION_DAYS, even with personal data retention off,
// and never a delivery still being retried. Checked through the raw SQLite
// file (each engine's store part: test/store/contract-webhooks.ts).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import {  } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const DAY = 86_400_000;

describe('webhook delivery retention, run by the server', () => {
  const dir = tempDir();
  const file = join(dir.path, 'deliveries.db');
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    dir.remove();
  });

  it('keeps finished deliveries 30 days by default; 0 keeps them', () => {
    expect(loadConfig({}).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(0);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '-1' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS: must be a whole number of days/);
  });

  it('deletes a delivery finished before the period, keeps a recent one and one still retrying however old', { timeout: 60_000 }, async () => {
    const ok: Receiver = await startReceiver(() => ({ status: 200 }));
    const down: Receiver = await startReceiver(() => ({ status: 500 }));
    cleanup.push(() => ok.close(), () => down.close());
    const app: TestApp = await startApp({
      databaseUrl: `sqlite:${file}`,
      // The receivers listen on 127.0.0.1; a retry an hour away keeps the failing one pending.
      env: { RETENTION_DAYS: 'off', WEBHOOK_DELIVERY_RETENTION_DAYS: '30', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '3600000' },
    });
    cleanup.push(() => app.stop());
    const shop = await app.account(5);
    await app.webhooks.add('admin:test', shop.accountId, { url: ok.url });
    await app.webhooks.add('admin:test', shop.accountId, { url: down.url });
    for (const amount of [11, 12]) expect((await app.verify(shop.apiKey, sandboxQr({ amount }))).status).toBe(200);

    // A writable handle of its own: the test backdates deliveries behind the store's back.
    const db = new Database(file);
    cleanup.push(async () => void db.close());
    type Row = { id: string; state: string; finished_at: number | null; attempts: string };
    const rows = () => db.prepare('SELECT id, state, finished_at, attempts FROM webhook_deliveries ORDER BY created_at, id').all() as Row[];
    await eventually(async () => rows().length === 4 && rows().every((r) => JSON.parse(r.attempts).length >= 1));
    const delivered = rows().filter((r) => r.state === 'delivered');
    const retrying = rows().filter((r) => r.state === 'pending');
    expect([delivered.length, retrying.length]).toEqual([2, 2]);
    expect(delivered.every((r) => r.finished_at !== null) && retrying.every((r) => r.finished_at === null)).toBe(true);

    // One delivered 40 days ago, one yesterday; the retrying ones' events are 40 days old too.
    const [old, recent] = delivered as [Row, Row];
    const set = db.prepare('UPDATE webhook_deliveries SET created_at = ?, finished_at = coalesce(?, finished_at) WHERE id = ?');
    set.run(Date.now() - 40 * DAY, Date.now() - 40 * DAY, old.id);
    set.run(Date.now() - 2 * DAY, Date.now() - DAY, recent.id);
    for (const r of retrying) set.run(Date.now() - 40 * DAY, null, r.id);

    expect(await app.retention.runOnce()).toEqual({ personalData: null, webhookDeliveries: 1 });
    expect(rows().map((r) => r.id).sort()).toEqual([recent.id, ...retrying.map((r) => r.id)].sort());
    expect(await app.retention.runOnce()).toEqual({ personalData: null, webhookDeliveries: 0 });
  });
});
