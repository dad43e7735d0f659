// Transpiles src/ and the baseline server to plain JavaScript (esbuild, one
// file per module, no bundling), so the benchmark runs what `npm start` runs:
// no TypeScript loader in the measured processes, and always the current
// sources (dist/ may be stale). The output lives under node_modules/.cache so
// that bare imports (express, pg, …) resolve from the repository.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export interface BuiltApp {
  dir: string;
  cli: string;
  baseline: string;
}

export async function buildForBench(root: string): Promise<BuiltApp> {
  return transpile(root, root, 'slipgate-bench');
}

/**
 * The copy of src/ a test run's child processes run (test/global-setup.ts):
 * plain JavaScript starts a `serve` or a command in half the time `--import
 * tsx` takes, and there are hundreds of them in a run. One folder per run, so
 * two runs in one checkout do not replace each other's files.
 */
export async function buildForTests(root: string): Promise<string> {
  const { dir } = await transpile(root, root, `slipgate-test-${process.pid}`);
  // src/http/dashboard.ts serves ../../dist/dashboard from its own folder: the build's, through this link.
  symlinkSync(join(root, 'dist'), join(dir, 'dist'));
  return dir;
}

/**
 * slipgate as it was at a git revision (`--against`), for A/B runs: its src/
 * from `git archive`, transpiled beside this tree's build so that its bare
 * imports resolve from this tree's node_modules (a newer dependency set).
 */
export async function buildRevisionForBench(root: string, revision: string): Promise<BuiltApp & { revision: string }> {
  const sha = execFileSync('git', ['rev-parse', '--short', `${revision}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
  const source = mkdtempSync(join(tmpdir(), 'slipgate-bench-rev-'));
  try {
    execFileSync('bash', ['-c', `git archive ${sha} src scripts/bench/baseline.ts | tar -x -C ${JSON.stringify(source)}`], { cwd: root });
    return { ...(await transpile(source, root, `slipgate-bench-${sha}`)), revision: sha };
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}

/** The commit this tree is at, and what differs from it (results files name both). */
export interface TreeState {
  /** `git rev-parse HEAD`; null outside a git checkout. */
  commit: string | null;
  /** Paths with uncommitted changes (untracked included), bench/results/ left out: results are written there. */
  changed: string[];
}

export function treeState(root: string): TreeState {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const commit = git('rev-parse', 'HEAD').trim();
    const changed = git('status', '--porcelain', '--untracked-files=all', '--', '.', ':(exclude)bench/results')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    return { commit, changed };
  } catch {
    return { commit: null, changed: [] };
  }
}

/** Why results from this tree cannot be tied to one commit; null when they can. */
export function untiedReason(tree: TreeState): string | null {
  if (tree.commit === null) return 'not a git checkout: the revision measured has no name';
  if (tree.changed.length > 0) return `uncommitted changes (${tree.changed.slice(0, 5).join(', ')}${tree.changed.length > 5 ? ', …' : ''}): the results would describe no commit`;
  return null;
}

async function transpile(source: string, root: string, cacheName: string): Promise<BuiltApp> {
  const dir = join(root, 'node_modules', '.cache', cacheName);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Inside node_modules the repository's "type": "module" does not apply.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  const entryPoints = [...tsFiles(join(source, 'src')), join(source, 'scripts', 'bench', 'baseline.ts')].map((f) => relative(source, f));
  await build({
    absWorkingDir: source,
    entryPoints,
    outdir: dir,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    sourcemap: false,
    logLevel: 'warning',
  });
  return { dir, cli: join(dir, 'src', 'cli.js'), baseline: join(dir, 'scripts', 'bench', 'baseline.js') };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}
