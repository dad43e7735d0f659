// Vitest globalSetup: one MongoDB-wire server for the whole run. MONGODB_URI
// (a real MongoDB) wins; otherwise scripts/mongo-wire.sh starts FerretDB on a
// free loopback port (building it first if the cached binary is missing) and
// stops it, data and all, when the run ends. FerretDB does not make a guarded
// update atomic, so `serve` refuses it for money: the run says
// MONGODB_ALLOW_NON_ATOMIC=yes (the test files' processes, and the servers and
// commands they start, inherit it; test/helpers/app.ts passes it on).
// It also transpiles src/ once for the run (scripts/bench/build.ts): the
// slipgate processes tests start run that copy (test/helpers/slipgate-command.ts).
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { buildForTests } from '../scripts/bench/build.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../scripts/mongo-wire.sh', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = await buildForTests(fileURLToPath(new URL('..', import.meta.url)));
  process.env.SLIPGATE_TEST_BUILD = build;
  const removeBuild = () => rmSync(build, { recursive: true, force: true });
  if (process.env.MONGODB_URI) {
    project.provide('mongoUri', process.env.MONGODB_URI);
    return async () => removeBuild();
  }
  // A fresh machine builds FerretDB first (a few minutes, once).
  const { stdout } = await run('bash', [SCRIPT, 'start'], { timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024 });
  const uri = stdout.trim().split('\n').pop()!;
  project.provide('mongoUri', uri);
  process.env.MONGODB_ALLOW_NON_ATOMIC = 'yes';
  return async () => {
    removeBuild();
    await run('bash', [SCRIPT, 'stop', uri], { timeout: 60_000 });
  };
}
