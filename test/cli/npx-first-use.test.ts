// The quickstart's `npx slipgate …` in this checkout answers at once on first
// use (#59: it took 40 s). npx links the checkout into its cache and npm runs
// `prepare` for that link; that was the whole build again. The build `npm ci`
// made is the one npx runs (scripts/prepare.mjs), so nothing is rebuilt. A
// fresh npx cache each time, as on a new machine.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npx slipgate on first use', () => {
  const cache = tempDir('slipgate-npx-cache-');
  afterAll(() => cache.remove());

  it('runs the checkout\'s build without building it again', { timeout: 120_000 }, () => {
    const built = statSync(`${root}/dist/revision.json`).mtimeMs;
    const out = execFileSync('npx', ['slipgate', '--version'], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_cache: cache.path, npm_config_update_notifier: 'false' } });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+ \(revision [\w.+-]+\)$/);
    // write-revision.mjs, the build's last step, rewrites this file: it was not run.
    expect(statSync(`${root}/dist/revision.json`).mtimeMs).toBe(built);
  });
});
