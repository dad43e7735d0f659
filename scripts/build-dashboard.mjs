// Bundles the internal dashboard (dashboard/) into dist/dashboard/ with
// esbuild: index.html, assets/app.js (jsQR included) and assets/app.css.
// Runs in `npm run build` (and so in `npm ci` via prepare). Everything is
// bundled from node_modules: the page loads nothing from other origins.
//   node scripts/build-dashboard.mjs [--outdir <dir>]
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--outdir');
const outdir = resolve(flag > 0 && process.argv[flag + 1] ? process.argv[flag + 1] : join(root, 'dist', 'dashboard'));

await rm(outdir, { recursive: true, force: true });
await mkdir(join(outdir, 'assets'), { recursive: true });
await build({
  absWorkingDir: root,
  // main.ts imports styles.css, so esbuild writes app.css next to app.js.
  entryPoints: { app: 'dashboard/src/main.ts' },
  outdir: join(outdir, 'assets'),
  entryNames: '[name]',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  charset: 'utf8',
  logLevel: 'warning',
});
await copyFile(join(root, 'dashboard', 'index.html'), join(outdir, 'index.html'));
console.log(`dashboard built into ${outdir}`);
