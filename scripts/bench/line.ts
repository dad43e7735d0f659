// Scenario L (issue #35's target): the same slip pictures sent to one
// slipgate through LINE (the LINE platform simulator, `slipgate
// simulate-line`, its own process) and through `POST /api/v1/verify`, in the
// same round, the two taking turns going first; slipgate's CPU per verified
// picture on each path, and their ratio. The verify route repeats a set of
// screenshots; through LINE each message carries a slip of its own, drawn
// before the path is measured (fresh-slips.ts), as a repeat is answered
// "sent before" there (#47).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { LineChannels } from '../../src/domain/line/channels.js';
import { secretBox } from '../../src/domain/secret-box.js';
import { openStore } from '../../src/store/open.js';
import type { EngineName } from './args.js';
import type { BuiltApp } from './build.js';
import { databaseCpu, databaseCpuSince } from './db-cpu.js';
import type { BenchDatabase } from './engines.js';
import { FreshSlipPictures } from './fresh-slips.js';
import { benchPictures, linePictures, verifyPictures, type PathResult, type PictureLoad } from './line-load.js';
import { lineTable, lineTargets, perVerified, type LinePath, type LineRun } from './line-report.js';
import { startBank, startSlipgate } from './phases.js';
import { startProcess, type Started } from './processes.js';
import { adminUrlOf } from './event-loop.js';
import { bankCallsOf, quietChat, quietLine, type QuietRun } from './line-quiet.js';
import type { BenchRun } from './run.js';
import type { Scenario } from './scenarios.js';
import { CREDITS_PER_ACCOUNT, onSeededDatabase } from './seeding.js';

/** A shop account, its API key, and the LINE channel connected to it. */
export interface BenchChannel {
  accountId: string;
  apiKey: string;
  channelId: string;
  channelSecret: string;
  accessToken: string;
}

/** Distinct pictures in the set the verify route repeats. */
const PICTURES = 8;
/** Fresh slips drawn for a warm-up through LINE (more are drawn if it sends more). */
const WARMUP_FRESH = 64;
/** Fresh slips drawn for a measured LINE path: the warm-up's pace over the path's duration, with this margin. */
const FRESH_MARGIN = 1.5;

/** The set, made once per bench run (each screenshot takes a moment to draw). */
let pictureSet: Promise<Buffer[]> | undefined;
/** The LINE path's fresh slips, one source per bench run: no slip is sent twice in a run. */
let freshSlips: Promise<FreshSlipPictures> | undefined;

/**
 * A new account with credits and a channel connected to it as `slipgate line
 * connect` does (sealed with `secretsKey`), replying in English (the bench
 * recognises the verified reply by its words) with checks off, as the verify
 * route is asked for none: both paths do the same work for a fresh slip.
 * Hints on: a picture without a slip QR is
 * answered (not verified) rather than left quiet, so it is counted.
 */
export async function connectBenchChannel(databaseUrl: string, secretsKey: string): Promise<BenchChannel> {
  const channel = { channelId: String(1_650_000_000 + Math.floor(Math.random() * 1_000_000)), channelSecret: randomBytes(16).toString('hex'), accessToken: randomBytes(32).toString('base64url') };
  const store = await openStore(databaseUrl);
  try {
    const { account, apiKey } = await new AccountService(store).createAccount({ name: 'Bench LINE shop', credits: CREDITS_PER_ACCOUNT, actor: 'bench' });
    await new LineChannels({ store, secrets: secretBox(Buffer.from(secretsKey, 'hex')) }).connect('bench', account.id, { ...channel, lang: 'en', checks: false, hints: true });
    return { accountId: account.id, apiKey: apiKey.secret, ...channel };
  } finally {
    await store.close();
  }
}

/** The bench channel's hints turned on or off (`slipgate line hints`); its secret and token stay as they are. */
export async function setBenchChannelHints(databaseUrl: string, secretsKey: string, channel: BenchChannel, hints: boolean): Promise<void> {
  const store = await openStore(databaseUrl);
  try {
    await new LineChannels({ store, secrets: secretBox(Buffer.from(secretsKey, 'hex')) }).setHints('bench', channel.channelId, hints);
  } finally {
    await store.close();
  }
}

/** Scenario L on one engine, --repeat rounds, each with fresh processes. */
export async function lineRounds(run: BenchRun, app: BuiltApp, engine: EngineName): Promise<void> {
  await onSeededDatabase(run, engine, async (db) => {
    // Throwaway, as the database is: slipgate needs it to open the sealed channel secret and token.
    const secretsKey = randomBytes(32).toString('hex');
    const channel = await connectBenchChannel(db.url, secretsKey);
    pictureSet ??= benchPictures(PICTURES);
    freshSlips ??= FreshSlipPictures.create();
    const [pictures, fresh] = await Promise.all([pictureSet, freshSlips]);
    const runs: LineRun[] = [];
    for (let round = 1; round <= run.args.repeat; round++) runs.push(await measureLine(run, app, run.scenarios.L, { db, channel, secretsKey, pictures, fresh, round }));
    run.report.line.push(...runs);
    console.log(['', ...lineTable(runs), '', ...lineTargets(runs).map((l) => `- ${l.replaceAll('**', '')}`), ''].join('\n'));
  });
}

interface LineSetup {
  db: BenchDatabase;
  channel: BenchChannel;
  secretsKey: string;
  pictures: Buffer[];
  fresh: FreshSlipPictures;
  round: number;
}

/** One round: bank, slipgate and the LINE simulator, a warm-up of both paths, then each path measured, in this round's order. */
async function measureLine(run: BenchRun, app: BuiltApp, scenario: Scenario, setup: LineSetup): Promise<LineRun> {
  const { db, channel, round } = setup;
  const tag = `L/${db.engine}`;
  run.say(`${tag} round ${round}: ${scenario.title}, ${scenario.durationSec} s each`);
  const bank = await startBank(run, app, 0, `L-${db.engine}-${round}`);
  let target: Started | undefined;
  let sim: Started | undefined;
  try {
    // slipgate must know the simulator's URL when it starts, and the simulator slipgate's: the simulator's port is chosen first.
    const simUrl = `http://127.0.0.1:${await freePort()}`;
    const env = { SECRETS_KEY: setup.secretsKey, LINE_API_BASE_URL: simUrl, LINE_DATA_API_BASE_URL: simUrl };
    target = await startSlipgate(run, app, db, bank.url, `${tag}-${round}`, undefined, env);
    sim = await startSimulator(run, app, simUrl, target.url, channel, `${db.engine}-${round}`);
    const load = (durationSec: number, pictures: PictureLoad['pictures'] = setup.pictures): PictureLoad => ({ pictures, concurrency: scenario.connections, durationSec });
    const { fresh } = setup;
    let linePace = 0;
    const paths = {
      verify: () => verifyPictures(target!.url, channel.apiKey, load(scenario.durationSec)),
      line: async () => {
        // Drawn now, so the drawing does not share the CPU with what is measured.
        await fresh.fill(Math.ceil(linePace * scenario.durationSec * FRESH_MARGIN) + scenario.connections);
        const late = fresh.drawnLate;
        const result = await linePictures(sim!.url, load(scenario.durationSec, fresh));
        if (fresh.drawnLate > late) run.say(`${tag} round ${round}, line: ${fresh.drawnLate - late} fresh slips drawn during the run (the pool ran dry)`);
        return result;
      },
    };
    // Warm-up: each decoder thread loads its decoder on its first picture, and each path's code gets compiled.
    await verifyPictures(target.url, channel.apiKey, load(scenario.warmupSec));
    await fresh.fill(WARMUP_FRESH);
    const warm = await linePictures(sim.url, load(scenario.warmupSec, fresh));
    linePace = warm.sent / Math.max(warm.seconds, 0.001);
    const first = round % 2 === 1 ? 'verify' : 'line';
    const measured: Partial<Record<'verify' | 'line', LinePath>> = {};
    for (const path of first === 'verify' ? (['verify', 'line'] as const) : (['line', 'verify'] as const)) {
      measured[path] = await measurePath(target, db, channel, paths[path]);
      const p = measured[path];
      run.say(
        `${tag} round ${round}, ${path}: ${p.verified} of ${p.sent} verified (${p.notVerified} not verified, ${p.noAnswer} no answer, ${p.charged} charged), ` +
          `${(p.verified / p.seconds).toFixed(1)}/s, CPU ${perVerified(p.cpu, p).toFixed(1)} ms per verified picture, p50 ${p.latencyMs.p50.toFixed(0)} p99 ${p.latencyMs.p99.toFixed(0)} ms`,
      );
    }
    // Ordinary chat on a quiet channel (the default; the bench's channel has hints on only to count every picture).
    let quiet: QuietRun | undefined;
    if (db.engine === 'sqlite') {
      await setBenchChannelHints(db.url, setup.secretsKey, channel, false);
      const adminUrl = adminUrlOf(target.logFile)!;
      quiet = await quietChat({ simUrl: sim.url, bankCalls: () => bankCallsOf(adminUrl), sqliteFile: db.url.replace(/^sqlite:/, ''), cpuSeconds: () => target!.cpuSeconds() }, run.args.quick ? 100 : 400);
      await setBenchChannelHints(db.url, setup.secretsKey, channel, true);
      run.say(`${tag} round ${round}, ${quietLine(quiet)}`);
    }
    return { engine: db.engine, round, first, pictures: setup.pictures.length, concurrency: scenario.connections, verify: measured.verify!, line: measured.line!, ...(quiet ? { quiet } : {}) };
  } finally {
    await sim?.stop();
    await target?.stop();
    await bank.stop();
  }
}

/** One path's run with slipgate's and the database's CPU around it, and the credits it spent. */
async function measurePath(target: Started, db: BenchDatabase, channel: BenchChannel, send: () => Promise<PathResult>): Promise<LinePath> {
  const creditsBefore = await credits(db, channel.accountId);
  const before = { target: target.cpuSeconds(), db: databaseCpu(db) };
  const result = await send();
  const cpu = { cpu: target.cpuSeconds() - before.target, db: databaseCpuSince(before.db, db) };
  return { ...result, ...cpu, charged: creditsBefore - (await credits(db, channel.accountId)) };
}

export async function credits(db: BenchDatabase, accountId: string): Promise<number> {
  const store = await openStore(db.url);
  try {
    return (await store.getAccount(accountId))!.credits;
  } finally {
    await store.close();
  }
}

/** `slipgate simulate-line` for the bench channel, sending its events to slipgate's public listener. */
function startSimulator(run: BenchRun, app: BuiltApp, simUrl: string, slipgateUrl: string, channel: BenchChannel, tag: string): Promise<Started> {
  const { port } = new URL(simUrl);
  return startProcess({
    name: 'simulated LINE platform',
    args: [app.cli, 'simulate-line', '--port', port, '--slipgate', slipgateUrl, '--channel-id', channel.channelId, '--channel-secret', channel.channelSecret, '--access-token', channel.accessToken],
    env: { ...process.env },
    logFile: join(run.work, `line-sim-${tag}.log`),
    ready: (lines) => lines.map((l) => /listening on (http:\/\/[^\s,]+)/.exec(l)?.[1]).find(Boolean),
  });
}

/** A port nothing listens on now (the simulator takes it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
