// Scenario L's setup and counting against a real slipgate on the sandbox
// network and the LINE platform simulator, in the bench's order: the
// simulator's port chosen first, slipgate started with its URLs and
// SECRETS_KEY, the bench channel connected to a new account as the bench
// connects it, then the simulator. A picture through LINE ends verified and
// charged once, as the same picture on the verify route does, and a slip
// verified before is not verified again through LINE, so the bench sends a
// fresh slip in each LINE message; a picture that does not verify is counted
// as such; the flags and the report read L right.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startLineSimulator, type LineSimulator } from '../../src/line/simulator/line-simulator.js';
import { parseArgs } from '../../scripts/bench/args.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import { connectBenchChannel, credits, freePort, setBenchChannelHints, type BenchChannel } from '../../scripts/bench/line.js';
import { quietChat, quietLine } from '../../scripts/bench/line-quiet.js';
import { FreshSlipPictures } from '../../scripts/bench/fresh-slips.js';
import { benchPictures, linePictures, VERIFIED_REPLY, verifyPictures } from '../../scripts/bench/line-load.js';
import { lineTargets, type LinePath, type LineRun } from '../../scripts/bench/line-report.js';
import { scenarios } from '../../scripts/bench/scenarios.js';
import { counting, startApp, type TestApp } from '../helpers/app.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';

const SECRETS_KEY = randomBytes(32).toString('hex');
let app: TestApp;
let sim: LineSimulator;
let db: BenchDatabase;
let channel: BenchChannel;
let pictures: Buffer[];
/** The sandbox network, counting the verify calls slipgate makes. */
const bank = counting(new SandboxUpstream());

beforeAll(async () => {
  const simUrl = `http://127.0.0.1:${await freePort()}`;
  app = await startApp({ env: { SECRETS_KEY, LINE_API_BASE_URL: simUrl, LINE_DATA_API_BASE_URL: simUrl }, upstream: bank });
  db = { engine: 'sqlite', url: app.databaseUrl, description: 'test', drop: async () => {} };
  channel = await connectBenchChannel(db.url, SECRETS_KEY);
  sim = await startLineSimulator({ port: Number(new URL(simUrl).port), channelId: channel.channelId, channelSecret: channel.channelSecret, accessToken: channel.accessToken, slipgateUrl: app.publicUrl });
  pictures = await benchPictures(2);
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await app?.stop();
});

const twoPictures = () => ({ pictures, concurrency: 2, durationSec: 60, maxPictures: 2 });

describe('bench scenario L', () => {
  it('a picture sent through the simulator ends verified (the reply says so) and charged once, as the same picture on the verify route does', { timeout: 60_000 }, async () => {
    const start = await credits(db, channel.accountId);
    const line = await linePictures(sim.url, twoPictures());
    expect(line).toMatchObject({ sent: 2, verified: 2, notVerified: 0, noAnswer: 0, samples: [] });
    expect(line.latencyMs.p99).toBeGreaterThanOrEqual(line.latencyMs.p50);
    const replies = sim.log.filter((e) => e.kind === 'reply');
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply.text!.startsWith(VERIFIED_REPLY)).toBe(true);
    // Each from a customer of its own: the per-user limit never decides what the bench measures.
    expect(new Set(replies.map((r) => r.to)).size).toBe(2);
    expect(await credits(db, channel.accountId)).toBe(start - 2);
    const records = (await app.store.listVerifyTransactions({ accountId: channel.accountId, limit: 10 })).items;
    expect(records.map((r) => r.source)).toEqual(['line', 'line']);

    const verify = await verifyPictures(app.publicUrl, channel.apiKey, twoPictures());
    expect(verify).toMatchObject({ sent: 2, verified: 2, notVerified: 0, noAnswer: 0 });
    expect(await credits(db, channel.accountId)).toBe(start - 4);
    // The same slips again through LINE, from other customers: "sent before" even with the channel's checks off (#47), free.
    const again = await linePictures(sim.url, twoPictures());
    expect(again).toMatchObject({ sent: 2, verified: 0, notVerified: 2 });
    expect(again.samples).toEqual(['ℹ️ This slip was sent before; the shop will check it.']);
    expect(await credits(db, channel.accountId)).toBe(start - 4);
    // What the bench sends through LINE: a fresh slip in each message, each verified and charged.
    const fresh = await FreshSlipPictures.create();
    await fresh.fill(1);
    const distinct = await linePictures(sim.url, { pictures: fresh, concurrency: 2, durationSec: 60, maxPictures: 3 });
    expect(distinct).toMatchObject({ sent: 3, verified: 3, notVerified: 0, noAnswer: 0 });
    // One drawn ahead, two while the run waited.
    expect(fresh.drawnLate).toBe(2);
    expect(await credits(db, channel.accountId)).toBe(start - 7);
  });

  it('counts a picture that does not verify as not verified, on both paths, and charges nothing for it', { timeout: 60_000 }, async () => {
    const blank = await sharp({ create: { width: 400, height: 800, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const start = await credits(db, channel.accountId);
    const load = { pictures: [blank], concurrency: 1, durationSec: 60, maxPictures: 1 };
    const line = await linePictures(sim.url, load);
    expect(line).toMatchObject({ sent: 1, verified: 0, notVerified: 1, noAnswer: 0 });
    expect(line.samples[0]).not.toContain(VERIFIED_REPLY);
    expect(await verifyPictures(app.publicUrl, channel.apiKey, load)).toMatchObject({ sent: 1, verified: 0, notVerified: 1 });
    expect(await credits(db, channel.accountId)).toBe(start);
  });

  it('a quiet channel: chat, stickers and photos without a slip cost no bank call, no bot message and no row but their event ids', { timeout: 60_000 }, async () => {
    const sqliteFile = db.url.replace(/^sqlite:/, '');
    await setBenchChannelHints(db.url, SECRETS_KEY, channel, false);
    try {
      const quiet = await quietChat({ simUrl: sim.url, bankCalls: async () => bank.calls, sqliteFile, cpuSeconds: () => process.cpuUsage().user / 1e6 }, 12, 50);
      expect(quiet).toMatchObject({ sent: 12, perSecond: 50, bankCalls: 0, botMessages: 0, rowsAdded: { line_events: 12 } });
      expect(Object.keys(quiet.rowsAdded)).toEqual(['line_events']);
      expect(quietLine(quiet)).toContain('0 bank calls, 0 bot messages, rows written: line_events +12');
    } finally {
      await setBenchChannelHints(db.url, SECRETS_KEY, channel, true);
    }
    // The counters can see what the quiet batch did not do: a slip through the same chat is a bank call and a reply.
    const before = bank.calls;
    const fresh = await FreshSlipPictures.create();
    await fresh.fill(1);
    expect(await linePictures(sim.url, { pictures: fresh, concurrency: 1, durationSec: 60, maxPictures: 1 })).toMatchObject({ verified: 1 });
    expect(bank.calls).toBe(before + 1);
  });

  it('runs by default and with --scenario L; keeps in flight what one account may have on the decoders by default', () => {
    expect(parseArgs([]).scenarios).toContain('L');
    expect(parseArgs(['--scenario', 'l', '--repeat', '3'])).toMatchObject({ scenarios: ['L'], repeat: 3 });
    expect(scenarios(true).L.connections).toBe(loadConfig({}).IMAGE_MAX_PER_ACCOUNT);
  });

  it('judges the target on the median of the per-round ratios of CPU per verified picture', () => {
    const path = (cpu: number, verified: number): LinePath => ({ sent: verified, verified, notVerified: 0, noAnswer: 0, seconds: 1, latencyMs: { p50: 1, p99: 1 }, samples: [], cpu, db: 0, charged: verified });
    const round = (n: number, lineCpu: number): LineRun => ({ engine: 'sqlite', round: n, first: n % 2 ? 'verify' : 'line', pictures: 8, concurrency: 4, verify: path(3, 100), line: path(lineCpu, 50) });
    // verify 30 ms per picture in every round, LINE 36, 30 and 31.8 ms: ratios 1.2, 1.0 and 1.06, median 1.06.
    expect(lineTargets([round(1, 1.8), round(2, 1.5), round(3, 1.59)])).toEqual(['L on sqlite, slipgate CPU per verified picture through LINE ≤ 1.1× the verify route\'s (median of 3 rounds): **met**: 1.06×']);
    expect(lineTargets([round(1, 1.8)])[0]).toContain('**MISSED**: 1.20×');
  });
});
