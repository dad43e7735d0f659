// The LINE staff's daily summary against a real SQLite database written by a
// real slipgate and the LINE simulator's Messaging API: nothing before
// LINE_SUMMARY_AT, then one push per staff target with the day's slips and
// baht, the orders paid, the orders open and the credits left; once a day,
// by the instance that holds the (only) live lease.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bangkokDayStart } from '../../src/domain/bangkok-time.js';
import { secretBox } from '../../src/domain/secret-box.js';
import { createLogger } from '../../src/log/log.js';
import { startInstanceLease } from '../../src/schedules/lease.js';
import { lineHttpApi } from '../../src/line/line-http-api.js';
import { scheduleLineSummary } from '../../src/schedules/line-summary.js';
import { openStore } from '../../src/store/open.js';
import { slipFor } from '../payments/helpers.js';
import { SECRETS_KEY, startLineRig, type LineRig } from '../helpers/line.js';
import { tempDir } from '../helpers/temp.js';

const OWNER = 'U0000000000000000000000000000fee1';
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

describe('LINE daily summary', () => {
  it("pushes the day's slips, baht, orders paid and open and credits left to each staff target at its time, once", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    cleanup.push(async () => dir.remove());
    const r: LineRig = await startLineRig({ databaseUrl: `sqlite:${join(dir.path, 'summary.db')}`, matchPaymentRequests: true, lang: 'en', credits: 10 });
    cleanup.push(() => r.sim.close());
    await r.app.lineChannels.addStaffTarget('admin:test', r.channelId, OWNER);
    const receiver = await r.app.admin.addReceiver('test', { accountId: r.accountId, promptPay: '0812345678', nameEn: 'SOMCHAI JAIDEE' });
    for (const [reference, satang] of [['ORDER-1', 48050], ['ORDER-2', 12000], ['ORDER-3', 9900]] as const) {
      await r.app.payments.create(r.accountId, { amount: satang, reference, expiresInMinutes: 30, receiver: receiver.id });
    }
    await r.control('/sim/send-text', { text: slipFor({ amount: 480.5 }) });
    await r.control('/sim/send-text', { text: slipFor({ amount: 120 }) });
    await r.control('/sim/send-text', { text: slipFor({ amount: 15.25 }) });
    await r.answers(3);
    // slipgate stops (its lease ends): the schedule below holds the only live lease.
    await r.app.stop();

    const store = await openStore(r.app.databaseUrl);
    cleanup.push(() => store.close());
    const logger = createLogger('silent');
    const lease = await startInstanceLease(store, { heartbeatMs: 1_000, staleMs: 60_000, logger });
    cleanup.push(() => lease.end());
    const started = Date.now();
    const minute = new Date(Math.floor(started / 60_000) * 60_000);
    const at = new Date(minute.getTime() + 7 * 3_600_000).toISOString().slice(11, 16);
    let clock = new Date(minute.getTime() - 60_000);
    const api = lineHttpApi({ apiBaseUrl: r.sim.url, dataApiBaseUrl: r.sim.url, timeoutMs: 5_000, userAgent: 'test' });
    const schedule = scheduleLineSummary(store, { lease, logger, secrets: secretBox(Buffer.from(SECRETS_KEY, 'hex')), api, at, now: () => clock });
    cleanup.push(() => schedule.stop());

    expect(await schedule.runOnce()).toBeNull();
    clock = new Date(started);
    expect(await schedule.runOnce()).toBe(1);
    expect(await schedule.runOnce()).toBeNull();
    // The staff note of the 15.25 slip (it matched no order it could pay) went out when slipgate stopped: the summary is apart.
    const pushes = r.sim.log.filter((e) => e.kind === 'push' && e.to === OWNER && e.text!.startsWith('🧾'));
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.text).toMatch(/^🧾 Summary of .+\nSlips verified: 3, ฿615\.75\nOrders paid: 2\nOrders open: 1\nCredits left: 7$/);
    expect(bangkokDayStart(new Date('2026-11-28T16:59:59Z')).toISOString()).toBe('2026-11-27T17:00:00.000Z');
    expect(bangkokDayStart(new Date('2026-11-28T17:00:00Z')).toISOString()).toBe('2026-11-28T17:00:00.000Z');
  });
});
