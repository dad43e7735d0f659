// The generated parts of the docs (settings table, CLI reference) are what
// `npm run docs` writes today, and the settings table names every environment
// variable src/ reads, so neither can drift from the code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_PARTS, withPart } from '../../scripts/docs/reference.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.c?ts$/.test(name) ? [path] : [];
  });
}

describe('generated docs', () => {
  for (const part of GENERATED_PARTS) {
    it(`${part.page} (${part.marker}) is up to date; run npm run docs after changing it`, () => {
      const page = read(part.page);
      expect(withPart(page, part)).toBe(page);
    });
  }

  it('the settings table lists every environment variable src/ reads', () => {
    const table = read('docs/configuration.md');
    const listed = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    const read_ = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) read_.add((m[1] ?? m[2])!);
    }
    expect(read_.size).toBeGreaterThan(5);
    expect([...read_].filter((name) => !listed.has(name))).toEqual([]);
    // and every setting of the schema, WORKERS included (it was only under Performance)
    for (const name of ['WORKERS', 'RATE_LIMIT_PER_KEY_PER_MIN', 'DATABASE_URL', 'UPSTREAMS', 'METRICS_TOKEN']) expect(listed).toContain(name);
  });

  it('the CLI reference has every command, admin-tokens and verify included', () => {
    const cli = read('docs/cli.md');
    const commands = [...cli.matchAll(/^### `slipgate ([a-z-]+(?: [a-z-]+)?)`$/gm)].map((m) => m[1]);
    for (const name of ['serve', 'accounts create', 'keys allow-ip', 'admin-tokens create', 'admin-tokens revoke', 'verify', 'backup', 'restore', 'audit export', 'retention run']) {
      expect(commands).toContain(name);
    }
  });
});
