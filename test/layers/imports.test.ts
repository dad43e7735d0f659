// The layers as the source files import them: adapters do not reach into one
// another, the server and the client SDK share the picture decoder through a
// module of its own, and the domain imports no framework or driver. Static
// and dynamic imports alike (`import type` is left out: it vanishes at build).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.c?ts$/.test(e.name) ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every runtime import of every file under src/: relative ones as paths under src/, packages as their names. */
const graph = sourceFiles(SRC).map((file) => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
  const imports = specifiers.map((s) => (s.startsWith('.') ? relative(SRC, resolve(dirname(file), s)) : s));
  return { file: relative(SRC, file), imports };
});

/** `from → to` for every import of a file matching `from` that matches `to`. */
function crossings(from: RegExp, to: RegExp, allowed: RegExp = /^$/): string[] {
  return graph.filter((f) => from.test(f.file)).flatMap((f) => f.imports.filter((i) => to.test(i) && !allowed.test(i)).map((i) => `${f.file} → ${i}`));
}

describe('layers', () => {
  it('sees the files it judges', () => {
    expect(graph.find((f) => f.file === 'http/audit-export-route.ts')?.imports).toContain('admin-auth.js');
    expect(graph.find((f) => f.file === 'images/decode-worker.ts')?.imports).toContain('slip-image/decode-image.js');
  });

  it('admin authentication is one module of its own that the HTTP and GraphQL adapters both import', () => {
    expect(crossings(/^http\//, /^graphql\//)).toEqual([]);
    expect(crossings(/^graphql\//, /^http\//)).toEqual([]);
    const users = graph.filter((f) => f.imports.includes('admin-auth.js')).map((f) => f.file.split('/')[0]);
    expect(new Set(users)).toEqual(new Set(['http', 'graphql']));
    // Every route that checks a token does it through that module: nothing else asks the token service to authenticate.
    const authenticating = sourceFiles(SRC).filter((file) => /\.authenticate\(/.test(readFileSync(file, 'utf8'))).map((file) => relative(SRC, file));
    expect(authenticating).toEqual(['admin-auth.ts']);
    // Nowhere else reads a bearer token.
    const bearer = sourceFiles(SRC).filter((file) => /Bearer\[/.test(readFileSync(file, 'utf8'))).map((file) => relative(SRC, file));
    expect(bearer).toEqual(['admin-auth.ts']);
  });

  it('the server never imports the client SDK, and the SDK never imports the server', () => {
    expect(crossings(/^(domain|http|graphql|images|store|upstream|metrics)\/|^(compose|main)\.ts$/, /^client\//)).toEqual([]);
    // The SDK's runtime code: itself and the shared picture decoder only.
    expect(crossings(/^client\//, /^(?!client\/|slip-image\/)[a-z-]+\//)).toEqual([]);
  });

  it('the picture decoder shared by both stands alone', () => {
    expect(crossings(/^slip-image\//, /\//, /^(slip-image\/|node:|zxing-wasm\/)/)).toEqual([]);
  });

  it('the domain imports no framework, driver or adapter (zod checks its inputs, promptparse reads the EMVCo QR)', () => {
    expect(crossings(/^domain\//, /./, /^(domain\/|node:|zod$|promptparse(\/|$))/)).toEqual([]);
  });
});
