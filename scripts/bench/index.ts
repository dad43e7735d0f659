// `npm run bench`: the load benchmark. Starts the simulated bank,
// slipgate (or the baseline) as child processes on loopback, drives them with
// autocannon, and writes bench/results/<date>.md. See README "Performance".
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccountService } from '../../src/domain/accounts.js';
import { reconcileAll } from '../../src/domain/reconcile.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { bankSimulator } from '../../src/upstream/simulator/simulated-bank.js';
import { parseArgs, type EngineName, type ScenarioId } from './args.js';
import { adminUrlOf, eventLoopWindow } from './event-loop.js';
import { buildForBench, buildRevisionForBench, treeState, untiedReason, type BuiltApp } from './build.js';
import { createDatabase, type BenchDatabase } from './engines.js';
import { databaseBytes, historySupported, lookupMs, seedHistory } from './history.js';
import { runImageFlood } from './images.js';
import { corpusRate, type PictureRun } from './pictures.js';
import { databaseCpu, databaseCpuSince } from './db-cpu.js';
import { generateHardSlipImages, type HardSlipImage } from '../../test/images/hard-slip-images.js';
import { runLoad, type LoadResult } from './load.js';
import { jsonLines, listenOverflows, startProcess, type Started } from './processes.js';
import { summariseProfiles } from './profile.js';
import { markdown, table, targets, type Report, type Row } from './report.js';
import { expectedMaxRate, scenarios, type Scenario } from './scenarios.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const ACCOUNTS = 32;
const CREDITS_PER_ACCOUNT = 10_000_000;

const args = parseArgs(process.argv.slice(2));
const all = scenarios(args.quick);
const chosen = (id: ScenarioId) => args.scenarios.includes(id);
const say = (line: string) => console.log(`[bench] ${line}`);
/** Scenario I's hard corpus, made once per run. */
let hardCorpus: Promise<HardSlipImage[]> | undefined;

// A results file names the commit measured; numbers from uncommitted code
// describe no commit, so they are written only when asked for (and say so).
const tree = treeState(ROOT);
const untied = untiedReason(tree);
if (untied && !args.allowDirty) {
  console.error(`bench: refusing to run: ${untied}. Commit first, or pass --allow-dirty (the results file will say so).`);
  process.exit(2);
}
if (untied) say(`--allow-dirty: ${untied}; the results file says so`);

const work = mkdtempSync(join(tmpdir(), 'slipgate-bench-'));
const report: Report = {
  date: new Date().toISOString().slice(0, 10),
  quick: args.quick,
  workers: args.workers,
  tree,
  history: {},
  commandLine: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
  loadBefore: loadavg(),
  loadAfter: [],
  engines: {},
  rows: [],
  skipped: [],
  reconcile: {},
  profiles: {},
  pictures: [],
};

try {
  say(`load average ${report.loadBefore.map((n) => n.toFixed(2)).join(' ')}${report.loadBefore[0]! > 1.5 ? ' (busy machine: numbers will be noisy)' : ''}`);
  say('transpiling src/ with esbuild');
  const app = await buildForBench(ROOT);

  const other = args.against === undefined ? undefined : await buildRevisionForBench(ROOT, args.against);
  // --repeat alternates A and D; with only H chosen it repeats H's runs instead.
  if (args.repeat > 1 && (chosen('A') || chosen('D'))) await repeatAD(app, args.engines, other);
  if (args.repeat > 1 && chosen('I')) await pictureRounds(app, other);
  for (const id of ['D', 'E'] as const) {
    if (args.repeat > 1) break;
    if (chosen(id)) report.rows.push(await measure(app, all[id], 'none', null, []));
  }
  for (const engine of args.engines) {
    if (args.repeat > 1) break;
    const needsDb = (['A', 'B', 'C', 'I'] as const).some(chosen);
    if (!needsDb) break;
    await benchEngine(app, engine);
  }
  if (chosen('H')) for (const engine of args.engines) await measureHistory(app, engine);
} finally {
  if (args.keep) say(`logs and profiles kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

report.loadAfter = loadavg();
console.log(`\n${table(report.rows)}\n`);
for (const s of report.skipped) console.log(`${s.engine} skipped: ${s.reason}`);
for (const line of targets(report.rows)) console.log(`- ${line.replaceAll('**', '')}`);
const out = args.out ?? join(ROOT, 'bench', 'results', `${report.date}${args.quick ? '-quick' : ''}.md`);
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, `${markdown(report)}\n`);
say(`results written to ${out}`);

async function benchEngine(app: BuiltApp, engine: EngineName): Promise<void> {
  await onSeededDatabase(engine, async (db, keys) => {
    for (const id of ['A', 'B', 'C'] as const) {
      if (chosen(id)) report.rows.push(await measure(app, all[id], engine, db, keys));
    }
    if (chosen('I')) report.pictures.push(await measureImages(app, all.I, engine, db, keys, 1));
    if (args.profile) {
      const dir = join(work, `profile-${engine}`);
      mkdirSync(dir);
      report.rows.push(await measure(app, all.A, engine, db, keys, dir));
      report.profiles[engine] = summariseProfiles(dir, app.dir);
    }
  });
}

/**
 * --repeat N: D and A alternately, N rounds, on one database per engine; the
 * report gives medians. With several engines, A runs on each of them in every
 * round, the engines taking turns going first, so their ratio is measured
 * within one round on one machine.
 */
async function repeatAD(app: BuiltApp, engines: EngineName[], other?: BuiltApp & { revision: string }): Promise<void> {
  await onSeededDatabases(engines, async (seeded) => {
    for (let round = 1; round <= args.repeat; round++) {
      report.rows.push({ ...(await measure(app, all.D, 'none', null, [])), round });
      const turn = (round - 1) % seeded.length;
      for (const { engine, db, keys } of [...seeded.slice(turn), ...seeded.slice(0, turn)]) {
        const thisTree = async () => report.rows.push({ ...(await measure(app, all.A, engine, db, keys)), round });
        const thatRevision = async () => report.rows.push({ ...(await measure(other!, all.A, engine, db, keys)), round, revision: other!.revision });
        // --against: the two versions take turns going first.
        if (other && round % 2 === 0) await thatRevision();
        await thisTree();
        if (other && round % 2 === 1) await thatRevision();
      }
    }
  });
}

/** Scenario I in --repeat rounds, on each engine; with --against the two versions take turns going first. */
async function pictureRounds(app: BuiltApp, other?: BuiltApp & { revision: string }): Promise<void> {
  for (const engine of args.engines) {
    await onSeededDatabase(engine, async (db, keys) => {
      for (let round = 1; round <= args.repeat; round++) {
        const versions = other ? (round % 2 === 0 ? [other, app] : [app, other]) : [app];
        for (const version of versions) report.pictures.push(await measureImages(version, all.I, engine, db, keys, round));
      }
    });
  }
}

interface Seeded {
  engine: EngineName;
  db: BenchDatabase;
  keys: string[];
}

/** onSeededDatabase for several engines at once; an engine that is not available is left out. */
async function onSeededDatabases(engines: EngineName[], run: (seeded: Seeded[]) => Promise<void>, seeded: Seeded[] = []): Promise<void> {
  const [engine, ...rest] = engines;
  if (engine === undefined) return seeded.length > 0 ? run(seeded) : undefined;
  let available = false;
  await onSeededDatabase(engine, async (db, keys) => {
    available = true;
    await onSeededDatabases(rest, run, [...seeded, { engine, db, keys }]);
  });
  if (!available) await onSeededDatabases(rest, run, seeded);
}

/** A throwaway database with the bench accounts for `run`, reconciled after it and dropped; skipped (with the reason) when the engine is not available. */
async function onSeededDatabase(engine: EngineName, run: (db: BenchDatabase, keys: string[]) => Promise<void>): Promise<void> {
  const setup = await createDatabase(engine, work, ROOT);
  if (!setup.ok) {
    say(`${engine}: skipped (${setup.reason})`);
    report.skipped.push({ engine, reason: setup.reason });
    return;
  }
  const { db } = setup;
  report.engines[engine] = db.description;
  try {
    await run(db, await seedAccounts(db));
    report.reconcile[engine] = await reconcile(db);
  } finally {
    await db.drop();
  }
}

async function seedAccounts(db: BenchDatabase): Promise<string[]> {
  const store = await openStore(db.url);
  try {
    const accounts = new AccountService(store);
    const keys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const { apiKey } = await accounts.createAccount({ name: `Bench shop ${i + 1}`, credits: CREDITS_PER_ACCOUNT, actor: 'bench' });
      keys.push(apiKey.secret);
    }
    return keys;
  } finally {
    await store.close();
  }
}

async function reconcile(db: BenchDatabase): Promise<string> {
  const store = await openStore(db.url);
  try {
    const results = await reconcileAll(store);
    const bad = results.filter((r) => r.problems.length > 0);
    const holds = (await store.listHolds()).length;
    const usage = results.reduce((sum, r) => sum + r.usage, 0);
    return bad.length === 0
      ? `all ${results.length} accounts reconcile; ${usage.toLocaleString('en-US')} credits spent; ${holds} holds open`
      : `${bad.length} DISCREPANCIES: ${bad.map((r) => `${r.accountId}: ${r.problems.join('; ')}`).join(' | ')}`;
  } finally {
    await store.close();
  }
}

/**
 * Scenario H: the same load with checks.duplicate, alternating between an
 * empty account and one that already holds --history verifications (empty,
 * history, history, empty: drift on the machine falls on both alike).
 */
async function measureHistory(app: BuiltApp, engine: EngineName): Promise<void> {
  const dir = join(work, `history-${engine}`);
  mkdirSync(dir);
  const setup = await createDatabase(engine, dir, ROOT);
  const unsupported = setup.ok ? historySupported(setup.db) : null;
  if (!setup.ok || unsupported) {
    const reason = setup.ok ? unsupported! : setup.reason;
    say(`H/${engine}: skipped (${reason})`);
    report.skipped.push({ engine: `${engine} (H)`, reason });
    if (setup.ok) await setup.db.drop();
    return;
  }
  const { db } = setup;
  report.engines[engine] ??= db.description;
  try {
    const store = await openStore(db.url);
    const accounts = new AccountService(store);
    const made = [];
    try {
      for (const name of ['Empty history', 'Long history']) made.push(await accounts.createAccount({ name, credits: CREDITS_PER_ACCOUNT, actor: 'bench' }));
    } finally {
      await store.close();
    }
    const [empty, full] = made.map((m) => ({ accountId: m.account.id, key: m.apiKey.secret }));
    say(`H/${engine}: writing ${args.history.toLocaleString('en-US')} verifications of one account`);
    const started = performance.now();
    await seedHistory(db, full!.accountId, args.history);
    const seedSeconds = (performance.now() - started) / 1000;
    const [emptyLookupMs, fullLookupMs] = await lookupMs(db, [empty!.accountId, full!.accountId]);
    report.history[engine] = { rows: args.history, bytes: await databaseBytes(db), seedSeconds, lookupMs: { empty: emptyLookupMs!, full: fullLookupMs! } };
    say(
      `H/${engine}: written in ${seedSeconds.toFixed(0)} s; database ${(report.history[engine]!.bytes / 2 ** 20).toFixed(0)} MB; ` +
        `the duplicate lookup alone ${emptyLookupMs!.toFixed(3)} ms empty, ${fullLookupMs!.toFixed(3)} ms with the history`,
    );
    const sides = args.quick ? [empty!, full!] : [empty!, full!, full!, empty!];
    for (let round = 1; round <= args.repeat; round++) {
      for (const side of sides) {
        const history = { stored: side === full ? args.history : 0, round };
        report.rows.push({ ...(await measure(app, all.H, engine, db, [side.key])), history });
      }
    }
    report.reconcile[`${engine} (H)`] = await reconcile(db);
  } finally {
    await db.drop();
  }
}

/** One scenario, fresh processes: simulated bank, then slipgate or the baseline, warm-up, measured run. */
async function measure(app: BuiltApp, scenario: Scenario, engine: string, db: BenchDatabase | null, keys: string[], profileDir?: string): Promise<Row> {
  const revision = 'revision' in app ? `@${String(app.revision)}` : '';
  const tag = `${scenario.id}${revision}${profileDir ? '*' : ''}/${engine}`;
  say(`${tag}: ${scenario.title}, ${scenario.durationSec} s`);
  const bank = await startProcess({
    name: 'simulated bank',
    args: [app.cli, 'simulate-bank', '--provider', 'kbank', '--port', '0', '--latency-ms', String(scenario.upstreamLatencyMs)],
    env: { ...process.env },
    logFile: join(work, `bank-${tag.replace('/', '-')}.log`),
    ready: (lines) => lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean),
  });
  let target: Started | undefined;
  try {
    target = scenario.target === 'baseline' ? await startBaseline(app, bank.url, tag) : await startSlipgate(app, db!, bank.url, tag, profileDir);
    const bodies = qrBodies(scenario);
    const load = { url: target.url, connections: scenario.connections, overallRate: scenario.overallRate, apiKeys: keys.length ? keys : ['none'], nextBody: bodies.next };
    if (scenario.warmupSec > 0) await runLoad({ ...load, durationSec: scenario.warmupSec });
    const overflowsBefore = listenOverflows();
    const loop = await eventLoopWindow(scenario.target === 'baseline' ? undefined : adminUrlOf(target.logFile));
    const cpuBefore = { target: target.cpuSeconds(), bank: bank.cpuSeconds(), db: databaseCpu(db) };
    const result: LoadResult = await runLoad({ ...load, durationSec: scenario.durationSec });
    const cpu = { target: target.cpuSeconds() - cpuBefore.target, bank: bank.cpuSeconds() - cpuBefore.bank, db: databaseCpuSince(cpuBefore.db, db) };
    const eventLoop = await loop?.();
    const overflows = listenOverflows() - overflowsBefore;
    const peakRssBytes = target.peakRssBytes();
    say(
      `${tag}: ${Math.round(result.responses / result.durationSec)} req/s, ${result.successes} ok, ${result.failures + result.errors} not ok, ` +
        `p50 ${result.latencyMs.p50.toFixed(2)} p99 ${result.latencyMs.p99.toFixed(2)} ms, ` +
        `CPU ${result.successes > 0 ? ((cpu.target * 1000) / result.successes).toFixed(3) : '–'} ms per success, peak RSS ${(peakRssBytes / 2 ** 20).toFixed(0)} MB` +
        (bodies.extra() > 0 ? `, ${bodies.extra()} QRs made during the run` : ''),
    );
    return { scenario, engine, profiled: profileDir !== undefined, load: result, peakRssBytes, listenOverflows: overflows, cpu, ...(eventLoop ? { eventLoop } : {}) };
  } finally {
    const code = await target?.stop();
    if (code !== undefined && code !== 0) say(`${tag}: ${target!.name} exited with ${code} (log: ${target!.logFile})`);
    await bank.stop();
  }
}

/** Scenario I: pictures and CPU per picture during the flood, then the decode rate on the hard corpus; in its own section of the results. */
async function measureImages(app: BuiltApp, scenario: Scenario, engine: string, db: BenchDatabase, keys: string[], round: number): Promise<PictureRun> {
  const revision = 'revision' in app ? String(app.revision) : undefined;
  const tag = `I${revision ? `@${revision}` : ''}/${engine}`;
  say(`${tag}: ${scenario.title}, ${scenario.durationSec} s`);
  hardCorpus ??= generateHardSlipImages();
  const corpus = await hardCorpus;
  const bank = await startProcess({
    name: 'simulated bank',
    args: [app.cli, 'simulate-bank', '--provider', 'kbank', '--port', '0', '--latency-ms', '0'],
    env: { ...process.env },
    logFile: join(work, `bank-I-${engine}-${revision ?? 'tree'}-${round}.log`),
    ready: (lines) => lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean),
  });
  let target: Started | undefined;
  try {
    target = await startSlipgate(app, db, bank.url, `${tag}-${round}`);
    // The QR texts alone at the same rate first: their CPU is taken out of the pictures' (netOfTexts).
    const textStart = target.cpuSeconds();
    const texts = await runLoad({ url: target.url, connections: 4, overallRate: scenario.overallRate!, durationSec: 5, apiKeys: keys, nextBody: () => `{"qrcode":"${sandboxQr()}"}` });
    const textCpuPerOk = (target.cpuSeconds() - textStart) / Math.max(1, texts.successes);
    // Warm-up: each decoder thread loads sharp and the decoder on its first picture.
    await runImageFlood({ url: target.url, apiKeys: keys, durationSec: 2, imageConcurrency: scenario.connections, qrcodeRate: scenario.overallRate! });
    // The pictures alone: the cost of a picture and nothing else (the figure the ≤ 35 ms target is judged on).
    const aloneBefore = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const aloneFlood = await runImageFlood({ url: target.url, apiKeys: keys, durationSec: scenario.durationSec, imageConcurrency: scenario.connections, qrcodeRate: 0 });
    const alone = { images: aloneFlood.images, cpu: target.cpuSeconds() - aloneBefore.target, db: databaseCpuSince(aloneBefore.db, db) };
    // Then with the QR texts beside them: their latencies, and the pictures' CPU net of the texts.
    const before = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const flood = await runImageFlood({ url: target.url, apiKeys: keys, durationSec: scenario.durationSec, imageConcurrency: scenario.connections, qrcodeRate: scenario.overallRate! });
    const spent = target.cpuSeconds() - before.target;
    const q = flood.qrcode!;
    const cpu = { target: spent, db: databaseCpuSince(before.db, db), netOfTexts: Math.max(0, spent - q.successes * textCpuPerOk) };
    const rate = await corpusRate(target.url, keys, corpus);
    say(
      `${tag}: pictures alone ${alone.images.perSec.toFixed(1)}/s at ${((alone.cpu * 1000) / Math.max(1, alone.images.verified)).toFixed(1)} ms CPU per picture; ` +
        `beside QR texts ${flood.images.perSec.toFixed(1)}/s verified (${flood.images.verified} ok, ${flood.images.refused429} refused 429, ${flood.images.other} other), ` +
        `CPU ${((cpu.target * 1000) / Math.max(1, flood.images.verified)).toFixed(1)} ms per picture (${((cpu.netOfTexts * 1000) / Math.max(1, flood.images.verified)).toFixed(1)} net of the QR texts); ` +
        `QR text beside them: ${q.successes} ok, ${q.failures + q.errors} not ok, p50 ${q.latencyMs.p50.toFixed(2)} p99 ${q.latencyMs.p99.toFixed(2)} ms; corpus ${rate.read}/${rate.total}`,
    );
    return { engine, round, ...(revision ? { revision } : {}), alone, flood, cpu, corpus: rate };
  } finally {
    await target?.stop();
    await bank.stop();
  }
}

/** Cluster workers inherit these from their primary. */
function heapFlags(): string[] {
  return args.heapMb ? [`--max-old-space-size=${args.heapMb}`] : [];
}

function startSlipgate(app: BuiltApp, db: BenchDatabase, bankUrl: string, tag: string, profileDir?: string): Promise<Started> {
  const creds = bankSimulator('kbank').credentials;
  return startProcess({
    name: 'slipgate',
    // This tree's slipgate starts as the `slipgate` command does: libuv's pool sized first (src/thread-pool.cts).
    args: [...heapFlags(), ...('revision' in app ? [] : ['-r', join(ROOT, 'src', 'thread-pool.cts')]), ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), app.cli, 'serve'],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      DATABASE_CREATE: 'yes',
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_LEVEL: 'info',
      WORKERS: String(args.workers),
      UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bankUrl, clientId: creds.id, clientSecret: creds.secret }]),
    },
    logFile: join(work, `slipgate-${tag.replace('/', '-').replace('*', 'p')}.log`),
    ready: (lines) => readyUrl(lines, 'slipgate listening'),
    timeoutMs: 60_000,
  });
}

function startBaseline(app: BuiltApp, bankUrl: string, tag: string): Promise<Started> {
  const creds = bankSimulator('kbank').credentials;
  return startProcess({
    name: 'baseline',
    args: [...heapFlags(), app.baseline],
    env: { ...process.env, PORT: '0', WORKERS: String(args.workers), BASELINE_UPSTREAM: bankUrl, BASELINE_CLIENT_ID: creds.id, BASELINE_CLIENT_SECRET: creds.secret },
    logFile: join(work, `baseline-${tag.replace('/', '-')}.log`),
    ready: (lines) => readyUrl(lines, 'baseline listening'),
  });
}

/** The public URL once every worker listens. */
function readyUrl(lines: string[], listening: string): string | undefined {
  const entries = jsonLines(lines);
  const url = entries.find((e) => e.msg === listening)?.publicUrl as string | undefined;
  if (!url) return undefined;
  return args.workers > 1 && !entries.some((e) => e.msg === 'all workers listening') ? undefined : url;
}

/** Request bodies with distinct QRs, made before the run so the client spends its time sending. */
function qrBodies(scenario: Scenario): { next: () => string; extra: () => number } {
  const count = Math.ceil(expectedMaxRate(scenario) * (scenario.durationSec + scenario.warmupSec));
  const checks = scenario.checks ? `,"checks":${JSON.stringify(scenario.checks)}` : '';
  const body = () => `{"qrcode":"${sandboxQr()}"${checks}}`;
  const made = Array.from({ length: count }, body);
  let i = 0;
  let extra = 0;
  return {
    next: () => {
      if (i < made.length) return made[i++]!;
      extra++;
      return body();
    },
    extra: () => extra,
  };
}
