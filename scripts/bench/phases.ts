// One measured scenario in fresh processes: the simulated bank, then
// slipgate or the baseline, a warm-up, and the measured run with the CPU,
// memory and event-loop figures taken around it.
import { join } from 'node:path';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { bankSimulator } from '../../src/upstream/simulator/simulated-bank.js';
import { generateHardSlipImages, type HardSlipImage } from '../../test/images/hard-slip-images.js';
import type { BuiltApp } from './build.js';
import { databaseCpu, databaseCpuSince } from './db-cpu.js';
import type { BenchDatabase } from './engines.js';
import { adminUrlOf, eventLoopWindow } from './event-loop.js';
import { phoneScreenshot, runImageFlood } from './images.js';
import { runLoad, type LoadResult, type LoadSpec } from './load.js';
import { runPacedLoad } from './paced-load.js';
import { cameraPhoto, corpusRate, decodeFloor, PICTURE_VARIANTS, type PictureRun } from './pictures.js';
import { photoMemory, PHOTOS_IN_FLIGHT } from './photo-memory.js';
import { jsonLines, listenOverflows, startProcess, type Started } from './processes.js';
import { checkReceiverRun, PAID_TO_RECEIVER, RECEIVER_MARKS, setReceiverPolicy } from './receiver-policy.js';
import type { Row } from './report.js';
import type { BenchRun } from './run.js';
import { expectedMaxRate, type Scenario } from './scenarios.js';
import { extrasFor } from './extras.js';
import { headroomSince } from './headroom.js';

/** Scenario I's hard corpus, made once per run. */
let hardCorpus: Promise<HardSlipImage[]> | undefined;

/** One scenario, fresh processes: simulated bank, then slipgate or the baseline, warm-up, measured run. */
export async function measure(run: BenchRun, app: BuiltApp, scenario: Scenario, engine: string, db: BenchDatabase | null, keys: string[], profileDir?: string): Promise<Row> {
  const revision = 'revision' in app ? `@${String(app.revision)}` : '';
  const tag = `${scenario.id}${revision}${profileDir ? '*' : ''}/${engine}`;
  run.say(`${tag}: ${scenario.title}, ${scenario.durationSec} s`);
  if (scenario.receiverPolicy !== undefined) await setReceiverPolicy(db!, scenario.receiverPolicy);
  const extras = await extrasFor(run, scenario, engine, db, keys);
  let bank: Started | undefined;
  let target: Started | undefined;
  try {
    bank = await startBank(run, app, scenario.upstreamLatencyMs, tag);
    target = scenario.target === 'baseline' ? await startBaseline(run, app, bank.url, tag) : await startSlipgate(run, app, db!, bank.url, tag, profileDir, scenario.slipgateEnv);
    const own = (await extras?.ready?.(target.url)) ?? {};
    // A+pay brings its own bodies: A's QRs are not made for nothing.
    const bodies = own.nextKeyed ? undefined : qrBodies(scenario);
    const marks = scenario.receiverPolicy === undefined ? {} : { marks: RECEIVER_MARKS };
    const load = { url: target.url, connections: scenario.connections, overallRate: scenario.overallRate, apiKeys: keys.length ? keys : ['none'], nextBody: bodies?.next ?? (() => ''), ...marks, ...own };
    const drive = (spec: LoadSpec) => (scenario.paced && scenario.overallRate ? runPacedLoad({ ...spec, overallRate: scenario.overallRate }) : runLoad(spec));
    const warmup = scenario.warmupSec > 0 ? await drive({ ...load, durationSec: scenario.warmupSec }) : undefined;
    await extras?.warmedUp?.(warmup);
    const overflowsBefore = listenOverflows();
    const loop = await eventLoopWindow(scenario.target === 'baseline' ? undefined : adminUrlOf(target.logFile));
    const cpuBefore = { target: target.cpuSeconds(), bank: bank.cpuSeconds(), db: databaseCpu(db) };
    const room = headroomSince(target.proc.pid!);
    const result: LoadResult = await drive({ ...load, durationSec: scenario.durationSec });
    const headroom = room();
    const cpu = { target: target.cpuSeconds() - cpuBefore.target, bank: bank.cpuSeconds() - cpuBefore.bank, db: databaseCpuSince(cpuBefore.db, db) };
    const eventLoop = await loop?.();
    const overflows = listenOverflows() - overflowsBefore;
    const peakRssBytes = target.peakRssBytes();
    checkReceiverRun(scenario, result, tag);
    const figures = (await extras?.measured?.(result)) ?? {};
    run.say(
      `${tag}: ${Math.round(result.responses / result.durationSec)} req/s, ${result.successes} ok, ${result.failures + result.errors} not ok, ` +
        `p50 ${result.latencyMs.p50.toFixed(2)} p99 ${result.latencyMs.p99.toFixed(2)} ms, ` +
        `CPU ${result.successes > 0 ? ((cpu.target * 1000) / result.successes).toFixed(3) : '–'} ms per success, peak RSS ${(peakRssBytes / 2 ** 20).toFixed(0)} MB` +
        (bodies && bodies.extra() > 0 ? `, ${bodies.extra()} QRs made during the run` : ''),
    );
    return { scenario, engine, profiled: profileDir !== undefined, load: result, peakRssBytes, listenOverflows: overflows, cpu, headroom, ...(eventLoop ? { eventLoop } : {}), ...figures };
  } finally {
    const code = await target?.stop();
    if (code !== undefined && code !== 0) run.say(`${tag}: ${target!.name} exited with ${code} (log: ${target!.logFile})`);
    await bank?.stop();
    await extras?.close?.();
  }
}

/** Scenario I: pictures and CPU per picture during the flood, then the decode rate on the hard corpus; in its own section of the results. */
export async function measureImages(run: BenchRun, app: BuiltApp, scenario: Scenario, engine: string, db: BenchDatabase, keys: string[], round: number): Promise<PictureRun> {
  const revision = 'revision' in app ? String(app.revision) : undefined;
  const tag = `I${revision ? `@${revision}` : ''}/${engine}`;
  run.say(`${tag}: ${scenario.title}, ${scenario.durationSec} s`);
  hardCorpus ??= generateHardSlipImages();
  const corpus = await hardCorpus;
  const bank = await startBank(run, app, 0, `I-${engine}-${revision ?? 'tree'}-${round}`);
  let target: Started | undefined;
  try {
    target = await startSlipgate(run, app, db, bank.url, `${tag}-${round}`);
    // The QR texts alone at the same rate first: their CPU is taken out of the pictures' (netOfTexts).
    const textStart = target.cpuSeconds();
    const texts = await runLoad({ url: target.url, connections: 4, overallRate: scenario.overallRate!, durationSec: 5, apiKeys: keys, nextBody: () => `{"qrcode":"${sandboxQr()}"}` });
    const textCpuPerOk = (target.cpuSeconds() - textStart) / Math.max(1, texts.successes);
    // Warm-up: each decoder thread loads sharp and the decoder on its first picture.
    await runImageFlood({ url: target.url, apiKeys: keys, durationSec: 2, imageConcurrency: scenario.connections, qrcodeRate: scenario.overallRate! });
    // The pictures alone: the cost of a picture and nothing else (the figure the ≤ 35 ms target is judged on).
    const screenshot = await phoneScreenshot(sandboxQr());
    // While slipgate is idle: what of a read is the decode itself (this tree's decoder only).
    const floor = revision ? undefined : await decodeFloor(screenshot, cameraPhoto(corpus));
    const aloneBefore = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const aloneFlood = await runImageFlood({ url: target.url, apiKeys: keys, durationSec: scenario.durationSec, imageConcurrency: scenario.connections, qrcodeRate: 0, picture: { bytes: screenshot, form: 'json' } });
    const alone = { images: aloneFlood.images, cpu: target.cpuSeconds() - aloneBefore.target, db: databaseCpuSince(aloneBefore.db, db) };
    // The same alone, for the other pictures, forms and pictures in flight (pictures.ts PICTURE_VARIANTS); a revision without the byte form skips it.
    const variants: PictureRun['variants'] = [];
    for (const variant of PICTURE_VARIANTS) {
      if (variant.form === 'bytes' && revision) continue;
      const bytes = variant.picture === 'camera' ? cameraPhoto(corpus) : screenshot;
      const started = target.cpuSeconds();
      const result = await runImageFlood({ url: target.url, apiKeys: keys, durationSec: scenario.durationSec, imageConcurrency: variant.inFlight ?? scenario.connections, qrcodeRate: 0, picture: { bytes, form: variant.form } });
      variants.push({ ...variant, images: result.images, cpu: target.cpuSeconds() - started });
      run.say(`${tag}: ${variant.picture} as ${variant.form}, ${variant.inFlight ?? scenario.connections} in flight: ${result.images.perSec.toFixed(1)}/s at ${((variants.at(-1)!.cpu * 1000) / Math.max(1, result.images.verified)).toFixed(1)} ms CPU per picture`);
    }
    // Then with the QR texts beside them: their latencies, and the pictures' CPU net of the texts.
    const before = { target: target.cpuSeconds(), db: databaseCpu(db) };
    const flood = await runImageFlood({ url: target.url, apiKeys: keys, durationSec: scenario.durationSec, imageConcurrency: scenario.connections, qrcodeRate: scenario.overallRate! });
    const spent = target.cpuSeconds() - before.target;
    const q = flood.qrcode!;
    const cpu = { target: spent, db: databaseCpuSince(before.db, db), netOfTexts: Math.max(0, spent - q.successes * textCpuPerOk) };
    const rate = await corpusRate(target.url, keys, corpus);
    // Memory: 64 camera photos in flight, in a slipgate of their own (photo-memory.ts).
    const photos = await photoMemory(run, corpus, keys, () => startSlipgate(run, app, db, bank.url, `${tag}-${round}-photos`));
    run.say(`${tag}: ${PHOTOS_IN_FLIGHT} camera photos in flight: ${photos.images.verified} verified, ${photos.images.refused429} refused 429, peak RSS ${(photos.peakRssBytes / 2 ** 20).toFixed(0)} MB`);
    run.say(
      `${tag}: pictures alone ${alone.images.perSec.toFixed(1)}/s at ${((alone.cpu * 1000) / Math.max(1, alone.images.verified)).toFixed(1)} ms CPU per picture; ` +
        `beside QR texts ${flood.images.perSec.toFixed(1)}/s verified (${flood.images.verified} ok, ${flood.images.refused429} refused 429, ${flood.images.other} other), ` +
        `CPU ${((cpu.target * 1000) / Math.max(1, flood.images.verified)).toFixed(1)} ms per picture (${((cpu.netOfTexts * 1000) / Math.max(1, flood.images.verified)).toFixed(1)} net of the QR texts); ` +
        `QR text beside them: ${q.successes} ok, ${q.failures + q.errors} not ok, p50 ${q.latencyMs.p50.toFixed(2)} p99 ${q.latencyMs.p99.toFixed(2)} ms; corpus ${rate.read}/${rate.total}`,
    );
    return { engine, round, ...(revision ? { revision } : {}), ...(floor ? { floor } : {}), alone, variants, flood, cpu, corpus: rate, photos };
  } finally {
    await target?.stop();
    await bank.stop();
  }
}

/** The simulated bank (KBank protocol) on a free port, answering after `latencyMs`. */
export function startBank(run: BenchRun, app: BuiltApp, latencyMs: number, tag: string): Promise<Started> {
  return startProcess({
    name: 'simulated bank',
    args: [app.cli, 'simulate-bank', '--provider', 'kbank', '--port', '0', '--latency-ms', String(latencyMs)],
    env: { ...process.env },
    logFile: join(run.work, `bank-${tag.replace('/', '-')}.log`),
    ready: (lines) => lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean),
  });
}

/** Cluster workers inherit these from their primary. */
function heapFlags(run: BenchRun): string[] {
  return run.args.heapMb ? [`--max-old-space-size=${run.args.heapMb}`] : [];
}

export function startSlipgate(run: BenchRun, app: BuiltApp, db: BenchDatabase, bankUrl: string, tag: string, profileDir?: string, env: Record<string, string> = {}): Promise<Started> {
  const creds = bankSimulator('kbank').credentials;
  return startProcess({
    name: 'slipgate',
    // This tree's slipgate starts as the `slipgate` command does: libuv's pool sized first (src/threads/thread-pool.cts).
    args: [...heapFlags(run), ...('revision' in app ? [] : ['-r', join(run.root, 'src', 'threads', 'thread-pool.cts')]), ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), app.cli, 'serve'],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      DATABASE_CREATE: 'yes',
      PORT: '0',
      ADMIN_PORT: '0',
      LOG_LEVEL: 'info',
      // The bench's webhook receivers listen on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKERS: String(run.args.workers),
      UPSTREAMS: JSON.stringify([{ name: 'kbank-sim', provider: 'kbank', baseUrl: bankUrl, clientId: creds.id, clientSecret: creds.secret }]),
      ...env,
    },
    logFile: join(run.work, `slipgate-${tag.replace('/', '-').replace('*', 'p')}.log`),
    ready: (lines) => readyUrl(run, lines, 'slipgate listening'),
    timeoutMs: 60_000,
    cpus: run.pin?.target,
    // As npm start, the unit and the image start it: V8's heap sized to the machine (bin/sized-node). A revision
    // from before that script (--against) starts as its own start command did, with node's defaults.
    ...('revision' in app ? {} : { launcher: join(run.root, 'bin', 'sized-node') }),
  });
}

function startBaseline(run: BenchRun, app: BuiltApp, bankUrl: string, tag: string): Promise<Started> {
  const creds = bankSimulator('kbank').credentials;
  return startProcess({
    name: 'baseline',
    args: [...heapFlags(run), app.baseline],
    env: { ...process.env, PORT: '0', WORKERS: String(run.args.workers), BASELINE_UPSTREAM: bankUrl, BASELINE_CLIENT_ID: creds.id, BASELINE_CLIENT_SECRET: creds.secret },
    logFile: join(run.work, `baseline-${tag.replace('/', '-')}.log`),
    ready: (lines) => readyUrl(run, lines, 'baseline listening'),
    cpus: run.pin?.target,
  });
}

/** The public URL once every worker listens. */
function readyUrl(run: BenchRun, lines: string[], listening: string): string | undefined {
  const entries = jsonLines(lines);
  const url = entries.find((e) => e.msg === listening)?.publicUrl as string | undefined;
  if (!url) return undefined;
  return run.args.workers > 1 && !entries.some((e) => e.msg === 'all workers listening') ? undefined : url;
}

/** Request bodies with distinct QRs, made before the run so the client spends its time sending. */
function qrBodies(scenario: Scenario): { next: () => string; extra: () => number } {
  const count = Math.ceil(expectedMaxRate(scenario) * (scenario.durationSec + scenario.warmupSec));
  const checks = scenario.checks ? `,"checks":${JSON.stringify(scenario.checks)}` : '';
  const details = scenario.receiverPolicy === undefined ? {} : { details: PAID_TO_RECEIVER };
  const body = () => `{"qrcode":"${sandboxQr(details)}"${checks}}`;
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
