// Starts one of this package's modules as a worker thread, wherever it runs
// from: dist/ and the bench's esbuild output are plain JavaScript (.js beside
// the caller); under tsx or vitest the sources are TypeScript (.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * `beside`: the caller's import.meta.url; `name`: the thread's module next to
 * it, without extension. On Node 20 a thread does not inherit the loader
 * hooks of `--import tsx`, so for TypeScript a small bootstrap registers tsx
 * in the thread before loading the module.
 */
export function startModuleThread(beside: string, name: string, options: WorkerOptions = {}): Worker {
  if (!new URL(beside).pathname.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, beside), options);
  const manifest = createRequire(beside).resolve('tsx/package.json');
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!;
  const api = pathToFileURL(join(dirname(manifest), exported.import.default)).href;
  const entry = new URL(`./${name}.ts`, beside).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
