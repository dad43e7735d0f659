// Transpiles src/ and the baseline server to plain JavaScript (esbuild, one
// file per module, no bundling), so the benchmark runs what `npm start` runs:
// no TypeScript loader in the measured processes, and always the current
// sources (dist/ may be stale). The output lives under node_modules/.cache so
// that bare imports (express, pg, …) resolve from the repository.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface BuiltApp {
  dir: string;
  cli: string;
  baseline: string;
}

export async function buildForBench(root: string): Promise<BuiltApp> {
  const dir = join(root, 'node_modules', '.cache', 'slipgate-bench');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Inside node_modules the repository's "type": "module" does not apply.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  const entryPoints = [...tsFiles(join(root, 'src')), join(root, 'scripts', 'bench', 'baseline.ts')].map((f) => relative(root, f));
  await build({
    absWorkingDir: root,
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
