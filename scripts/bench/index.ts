// `npm run bench`: the load benchmark. Starts the simulated bank,
// slipgate (or the baseline) as child processes on loopback, drives them with
// autocannon, and writes bench/results/<date>.md. See docs/performance.md.
// The scenarios run in run-scenarios.ts, each one's processes and
// measurements in phases.ts; output.ts writes the results.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './args.js';
import { buildForBench, buildRevisionForBench, treeState, untiedReason } from './build.js';
import { writeResults } from './output.js';
import { measure } from './phases.js';
import type { Report } from './report.js';
import { chosen, type BenchRun } from './run.js';
import { benchEngine, floodRuns, measureHistory, pictureRounds, repeatAD } from './run-scenarios.js';
import { retentionRuns } from './retention.js';
import { lineRounds } from './line.js';
import { scenarios } from './scenarios.js';
import { pinCores } from './pin.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const args = parseArgs(process.argv.slice(2));
const say = (line: string) => console.log(`[bench] ${line}`);

// A results file names the commit measured; numbers from uncommitted code
// describe no commit, so they are written only when asked for (and say so).
const tree = treeState(ROOT);
const untied = untiedReason(tree);
if (untied && !args.allowDirty) {
  console.error(`bench: refusing to run: ${untied}. Commit first, or pass --allow-dirty (the results file will say so).`);
  process.exit(2);
}
if (untied) say(`--allow-dirty: ${untied}; the results file says so`);

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
  floods: [],
  retention: [],
  line: [],
  drains: [],
};
// Before any child starts: each inherits the CPUs left to this process.
if (args.pin) {
  report.pin = pinCores();
  say(`--pin: slipgate on CPUs ${report.pin.target}, everything else on ${report.pin.others}`);
}
const chosenScenarios = scenarios(args.quick);
// --receiver-policy: A's slips pay the bench receiver too, with the policy off, so A and A+policy differ only by it.
if (args.receiverPolicy !== 'off') chosenScenarios.A = { ...chosenScenarios.A, receiverPolicy: 'off' };
const run: BenchRun = { root: ROOT, args, scenarios: chosenScenarios, work: mkdtempSync(join(tmpdir(), 'slipgate-bench-')), report, say, ...(report.pin ? { pin: report.pin } : {}) };

try {
  say(`load average ${report.loadBefore.map((n) => n.toFixed(2)).join(' ')}${report.loadBefore[0]! > 1.5 ? ' (busy machine: numbers will be noisy)' : ''}`);
  say('transpiling src/ with esbuild');
  const app = await buildForBench(ROOT);

  const other = args.against === undefined ? undefined : await buildRevisionForBench(ROOT, args.against);
  // --repeat alternates A and D; with only H chosen it repeats H's runs instead.
  if (args.repeat > 1 && (chosen(run, 'A') || chosen(run, 'D'))) await repeatAD(run, app, args.engines, other);
  if (args.repeat > 1 && chosen(run, 'I')) await pictureRounds(run, app, other);
  for (const id of ['D', 'E'] as const) {
    if (args.repeat > 1) break;
    if (chosen(run, id)) report.rows.push(await measure(run, app, run.scenarios[id], 'none', null, []));
  }
  for (const engine of args.engines) {
    if (args.repeat > 1) break;
    const needsDb = (['A', 'B', 'C', 'I'] as const).some((id) => chosen(run, id));
    if (!needsDb) break;
    await benchEngine(run, app, engine);
  }
  if (chosen(run, 'H')) for (const engine of args.engines) await measureHistory(run, app, engine);
  if (chosen(run, 'F')) for (const engine of args.engines) await floodRuns(run, app, engine);
  if (chosen(run, 'R')) for (const engine of args.engines) await retentionRuns(run, app, engine);
  if (chosen(run, 'L')) for (const engine of args.engines) await lineRounds(run, app, engine);
} finally {
  if (args.keep) say(`logs and profiles kept in ${run.work}`);
  else rmSync(run.work, { recursive: true, force: true });
}

report.loadAfter = loadavg();
writeResults(run);
